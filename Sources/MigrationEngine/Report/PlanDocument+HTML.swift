import EntityModel
import TypedSQL

extension PlanDocument {
    /// The document as one HTML page that needs no network: styles inline, no scripts, each step's
    /// diagram as inline SVG drawn by `graphviz`, or, without Graphviz, its Mermaid source in a
    /// `<pre>` with a note saying how to see it drawn.
    public func html(graphviz: Graphviz?) -> String {
        var body = "<h1>\(Self.escape(title))</h1>\n<p class=\"summary\">\(Self.escape(summary))</p>\n"
        if let givenBack, !givenBack.isEmpty {
            body += "<section class=\"given-back\">\n<h2>\(Self.escape(Self.givenBackHeading))</h2>\n<p>\(Self.escape(Self.givenBackSummary(givenBack)))</p>\n<ul>"
                + Self.givenBackLines(givenBack).map { "<li>\(Self.escape($0))</li>" }.joined() + "</ul>\n</section>\n"
        }
        body += "<p class=\"legend\">Marks: <span class=\"added\">added</span> · <span class=\"removed\">removed</span> · "
            + "<span class=\"renamed\">renamed or moved</span> · <span class=\"changed\">changed</span></p>\n"
        for section in sections {
            let impossible = !section.problems.isEmpty
            body += "<section>\n<h2>\(Self.escape(section.heading)) <span class=\"resolution\(impossible ? " impossible" : "")\">"
                + "\(Self.escape(section.resolution))</span></h2>\n"
            if impossible {
                body += "<p>This step cannot migrate as it is:</p>\n<ul class=\"problems\">"
                    + section.problems.map { "<li>\(Self.escape($0))</li>" }.joined() + "</ul>\n"
            }
            body += "<div class=\"diagram\">\(diagram(section.diagram, graphviz: graphviz))</div>\n"
            body += section.changes.isEmpty ? "<p>No change to the model.</p>\n"
                : "<h3>What changes</h3>\n<ul class=\"changes\">" + section.changes.map { "<li>\(Self.escape($0))</li>" }.joined() + "</ul>\n"
            if !section.rows.isEmpty {
                body += "<h3>Where the data goes</h3>\n<table>\n<thead><tr><th>Source</th><th>Fate</th><th>Where, or how</th><th>Responsible</th></tr></thead>\n<tbody>\n"
                for row in section.rows {
                    body += "<tr class=\"\(row.fate.rawValue)\"><td>\(Self.escape(row.source))</td><td><span class=\"fate\">\(row.fate.rawValue)</span></td>"
                        + "<td>\(Self.escape(row.detail))</td><td>\(Self.escape(row.responsible))</td></tr>\n"
                }
                body += "</tbody>\n</table>\n"
                let predicates = section.rows.filter { $0.rowsSQL != nil }
                if !predicates.isEmpty {
                    body += "<details><summary>Which rows, as SQL (\(predicates.count))</summary>\n<dl class=\"rows-sql\">"
                        + predicates.map { "<dt>\(Self.escape($0.source))</dt><dd><pre class=\"sql\">\(Self.escape($0.rowsSQL!))</pre></dd>" }.joined()
                        + "</dl>\n</details>\n"
                }
            }
            if !section.statements.isEmpty {
                let count = section.statements.count
                body += "<details><summary>SQL (\(count) statement\(count == 1 ? "" : "s"))</summary>\n<pre class=\"sql\">"
                    + section.statements.map { Self.escape($0.hasSuffix(";") ? $0 : $0 + ";") }.joined(separator: "\n") + "</pre>\n</details>\n"
            }
            body += "</section>\n"
        }
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8"/>
            <title>\(Self.escape(title))</title>
            <style>\(Self.style)</style>
            </head>
            <body>
            \(body)</body>
            </html>

            """
    }

    private func diagram(_ diagram: ERDiagram, graphviz: Graphviz?) -> String {
        if let graphviz, let svg = try? graphviz.inlineSVG(fromDOT: diagram.dot()) { return svg }
        return "<p class=\"note\">Graphviz is not installed here, so this diagram is its Mermaid source: paste it into a Mermaid "
            + "renderer, or install Graphviz (Debian: apt-get install graphviz) and write this page again.</p>\n"
            + "<pre class=\"mermaid-source\">\(Self.escape(diagram.mermaid()))</pre>"
    }

    /// Text as HTML: `&`, `<`, `>` and `"` escaped.
    /// Text in HTML: markup characters as entities, and control characters but line feeds and tabs
    /// escaped (``VisibleText``), which HTML cannot hold.
    static func escape(_ text: String) -> String {
        let entities: [Character: String] = ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"]
        return VisibleText.escaped(text, keeping: ["\n", "\t"]).map { entities[$0] ?? String($0) }.joined()
    }

    private static let style = """
        body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1f2328; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; line-height: 1.45; }
        h1 { font-size: 1.6rem; border-bottom: 1px solid #d0d7de; padding-bottom: .3rem; }
        h2 { font-size: 1.25rem; margin-top: 2.5rem; border-bottom: 1px solid #d0d7de; padding-bottom: .2rem; }
        h3 { font-size: 1rem; margin-bottom: .3rem; }
        .summary, .legend { color: #57606a; }
        .resolution { font-size: .85rem; font-weight: normal; background: #ddf4ff; color: #0969da; border-radius: 1rem; padding: .1rem .6rem; margin-left: .4rem; }
        .resolution.impossible { background: #ffebe9; color: #cf222e; }
        .added { color: #1a7f37; } .removed { color: #cf222e; } .renamed { color: #0969da; } .changed { color: #9a6700; }
        .diagram { overflow-x: auto; border: 1px solid #d0d7de; border-radius: 6px; padding: .5rem; margin: 1rem 0; }
        .diagram svg { max-width: 100%; height: auto; }
        table { border-collapse: collapse; width: 100%; font-size: .9rem; }
        th, td { border: 1px solid #d0d7de; padding: .3rem .5rem; text-align: left; vertical-align: top; }
        th { background: #f6f8fa; }
        .fate { border-radius: 1rem; padding: 0 .5rem; font-size: .8rem; white-space: nowrap; }
        tr.carried .fate { background: #dafbe1; color: #1a7f37; }
        tr.transformed .fate { background: #ddf4ff; color: #0969da; }
        tr.archived .fate { background: #fff8c5; color: #9a6700; }
        tr.lost .fate { background: #ffebe9; color: #cf222e; }
        details { margin: 1rem 0; } summary { cursor: pointer; color: #0969da; }
        pre { background: #f6f8fa; border-radius: 6px; padding: .75rem; overflow-x: auto; font-size: .85rem; }
        .note { color: #9a6700; }
        """
}
