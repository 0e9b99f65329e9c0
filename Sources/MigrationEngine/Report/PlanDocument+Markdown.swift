extension PlanDocument {
    /// The document as GitHub-flavoured Markdown: each step's diagram as a ```` ```mermaid ````
    /// block (GitHub and GitLab draw it), its account as a table, its SQL folded in `<details>`.
    ///
    /// Every text from the models (names, defaults, SQL) is text in it, whatever it holds: outside
    /// code it is escaped (``MarkdownText/inline(_:)``), and each code block's fence is longer than
    /// any run of backquotes inside.
    public func markdown() -> String {
        let text = MarkdownText.inline
        var out = "# \(text(title))\n\n\(text(summary))\n"
        if let givenBack, !givenBack.isEmpty {
            out += "\n## \(text(Self.givenBackHeading))\n\n\(text(Self.givenBackSummary(givenBack)))\n\n" + Self.givenBackLines(givenBack).map { "- \(text($0))\n" }.joined()
        }
        for section in sections {
            out += "\n## \(text(section.heading)): \(text(section.resolution))\n\n"
            if !section.problems.isEmpty {
                out += "This step cannot migrate as it is:\n\n"
                out += section.problems.map { "- \(text($0))\n" }.joined() + "\n"
            }
            out += MarkdownText.fenced(section.diagram.mermaid(), language: "mermaid") + "\n"
            out += section.changes.isEmpty ? "No change to the model.\n" : "What changes:\n\n" + section.changes.map { "- \(text($0))\n" }.joined()
            if !section.rows.isEmpty {
                out += "\nWhere the data goes:\n\n| Source | Fate | Where, or how | Responsible |\n| --- | --- | --- | --- |\n"
                for row in section.rows {
                    out += "| \(text(row.source)) | **\(row.fate.rawValue)** | \(text(row.detail)) | \(text(row.responsible)) |\n"
                }
                let predicates = section.rows.filter { $0.rowsSQL != nil }
                if !predicates.isEmpty {
                    out += "\n<details><summary>Which rows, as SQL (\(predicates.count))</summary>\n\n"
                        + predicates.map { "\(text($0.source)):\n\n" + MarkdownText.fenced($0.rowsSQL!, language: "sql") + "\n" }.joined(separator: "\n")
                        + "</details>\n"
                }
            }
            if !section.statements.isEmpty {
                out += "\n<details><summary>SQL (\(section.statements.count) statement\(section.statements.count == 1 ? "" : "s"))</summary>\n\n"
                let sql = section.statements.map { $0.hasSuffix(";") ? $0 : $0 + ";" }.joined(separator: "\n")
                out += MarkdownText.fenced(sql, language: "sql") + "\n</details>\n"
            }
        }
        return out
    }
}
