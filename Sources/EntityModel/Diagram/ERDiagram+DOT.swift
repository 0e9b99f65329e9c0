extension ERDiagram {
    /// The diagram in Graphviz's DOT language, for large models and for SVG (`dot -Tsvg`).
    ///
    /// Each entity is an HTML-like table (name, then one row per attribute: name, type, keys and
    /// notes); relationships are edges with crow's-foot arrows at both ends (`crowodot` zero or
    /// more, `crowtee` one or more, `teeodot` zero or one, `teetee` exactly one) and each
    /// relationship's name (`Recipe.ingredients`) and delete rule on the edge; inheritance is an edge with a
    /// hollow triangle at the parent. In a marked diagram, additions are green, removals red and
    /// struck through, renames and moves blue, other changes amber, each with its phrase.
    ///
    /// - Parameter title: The graph's name and label.
    public func dot(title: String? = nil) -> String {
        var lines = ["digraph \(DOTText.quoted(title ?? "model")) {"]
        var graph = ["rankdir=LR", "fontname=\"Helvetica\"", "fontsize=12", "nodesep=0.5", "ranksep=1.1", "pad=0.3"]
        if let title { graph += ["label=\(DOTText.quoted(title))", "labelloc=t"] }
        lines.append("  graph [\(graph.joined(separator: ", "))];")
        lines.append("  node [shape=plain, fontname=\"Helvetica\", fontsize=10];")
        lines.append("  edge [fontname=\"Helvetica\", fontsize=9, color=\"#57606a\", dir=both];")
        for box in boxes {
            let table = table(for: box)
            lines.append("  \(DOTText.quoted(box.name)) [label=<")
            lines += table.dropLast().map { "    " + $0 }
            lines.append("    \(table[table.count - 1])>];")
        }
        for link in links {
            var attributes = [
                "arrowtail=\(link.left.multiplicity.dotArrow)", "arrowhead=\(link.right.multiplicity.dotArrow)",
            ]
            let names = [link.right.label.map { "\(link.left.entity).\($0)" }, link.left.label.map { "\(link.right.entity).\($0)" }]
            let label = [link.change.map { "[\($0.phrase)]" }] + names + [link.joinTable.map { "table \($0)" }]
            attributes.append("label=\(DOTText.quoted(label.compactMap { $0 }.joined(separator: "\n")))")
            attributes += DOTText.edgeStyle(for: link.change)
            lines.append("  \(DOTText.quoted(link.left.entity)) -> \(DOTText.quoted(link.right.entity)) [\(attributes.joined(separator: ", "))];")
        }
        for link in inheritance {
            var attributes = ["dir=forward", "arrowhead=empty", "arrowsize=1.3"]
            if let change = link.change { attributes.append("label=\(DOTText.quoted("[\(change.phrase)]"))") }
            attributes += DOTText.edgeStyle(for: link.change)
            lines.append("  \(DOTText.quoted(link.child)) -> \(DOTText.quoted(link.parent)) [\(attributes.joined(separator: ", "))];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The entity's HTML-like table, one line per row so that the text diffs well.
    private func table(for box: Box) -> [String] {
        let header = DOTText.colors(for: box.change)
        var title = "<b>\(DOTText.html(box.name))</b>"
        if let change = box.change { title += "<br/><font point-size=\"9\">[\(DOTText.html(change.phrase))]</font>" }
        if box.change == .removed { title = "<s>\(title)</s>" }
        if box.change != nil { title = "<font color=\"\(header.text)\">\(title)</font>" }
        var lines = [
            "<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" cellpadding=\"4\" color=\"#8c959f\">",
            "  <tr><td colspan=\"3\" bgcolor=\"\(header.background)\">\(title)</td></tr>",
        ]
        for row in box.rows {
            let details = (row.change.map { ["[\($0.phrase)]"] } ?? []) + row.keys + row.notes
            let cells = [row.name, row.type, details.joined(separator: " · ")].map { text -> String in
                var content = DOTText.html(text)
                if row.change == .removed { content = "<s>\(content)</s>" }
                if row.change != nil { content = "<font color=\"\(DOTText.colors(for: row.change).text)\">\(content)</font>" }
                return "<td align=\"left\">\(content)</td>"
            }
            lines.append("  <tr>\(cells.joined())</tr>")
        }
        return lines + ["</table>"]
    }
}

extension ERDiagram.Multiplicity {
    /// The Graphviz arrow at this end: the maximum next to the entity, the minimum beyond it.
    var dotArrow: String {
        switch self {
        case .zeroOrOne: "teeodot"
        case .exactlyOne: "teetee"
        case .zeroOrMore: "crowodot"
        case .oneOrMore: "crowtee"
        }
    }
}

/// Spelling text for DOT: quoted IDs and HTML-like labels, and the colours of changes.
enum DOTText {
    /// A double-quoted DOT string; a line break becomes `\n`, other control characters are escaped
    /// (``VisibleText``).
    static func quoted(_ text: String) -> String {
        "\"" + VisibleText.escaped(text, keeping: ["\n"]).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }

    /// Text inside an HTML-like label: markup characters as entities, line breaks as `<br/>`, other
    /// control characters escaped (``VisibleText``).
    static func html(_ text: String) -> String {
        let entities: [Character: String] = ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "\n": "<br/>"]
        return VisibleText.escaped(text, keeping: ["\n"]).map { entities[$0] ?? String($0) }.joined()
    }

    /// The header background and the text colour of an element with `change`.
    static func colors(for change: ERDiagram.Change?) -> (background: String, text: String) {
        switch change {
        case nil: ("#eaeef2", "#1f2328")
        case .added?: ("#dafbe1", "#1a7f37")
        case .removed?: ("#ffebe9", "#cf222e")
        case .renamed?, .moved?: ("#ddf4ff", "#0969da")
        case .changed?: ("#fff8c5", "#9a6700")
        }
    }

    /// Edge attributes for a change: its colour, and dashes for a removal.
    static func edgeStyle(for change: ERDiagram.Change?) -> [String] {
        guard let change else { return [] }
        let color = colors(for: change).text
        return ["color=\"\(color)\"", "fontcolor=\"\(color)\""] + (change == .removed ? ["style=dashed"] : ["penwidth=1.6"])
    }
}
