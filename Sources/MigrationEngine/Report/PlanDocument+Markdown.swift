extension PlanDocument {
    /// The document as GitHub-flavoured Markdown: each step's diagram as a ```` ```mermaid ````
    /// block (GitHub and GitLab draw it), its account as a table, its SQL folded in `<details>`.
    public func markdown() -> String {
        var out = "# \(title)\n\n\(summary)\n"
        for section in sections {
            out += "\n## \(section.heading): \(section.resolution)\n\n"
            if !section.problems.isEmpty {
                out += "This step cannot migrate as it is:\n\n"
                out += section.problems.map { "- \($0)\n" }.joined() + "\n"
            }
            out += "```mermaid\n" + section.diagram.mermaid() + "```\n\n"
            out += section.changes.isEmpty ? "No change to the model.\n" : "What changes:\n\n" + section.changes.map { "- \($0)\n" }.joined()
            if !section.rows.isEmpty {
                out += "\nWhere the data goes:\n\n| Source | Fate | Where, or how | Responsible |\n| --- | --- | --- | --- |\n"
                for row in section.rows {
                    out += "| \(Self.cell(row.source)) | **\(row.fate.rawValue)** | \(Self.cell(row.detail)) | \(Self.cell(row.responsible)) |\n"
                }
            }
            if !section.statements.isEmpty {
                out += "\n<details><summary>SQL (\(section.statements.count) statement\(section.statements.count == 1 ? "" : "s"))</summary>\n\n"
                out += "```sql\n" + section.statements.map { $0.hasSuffix(";") ? $0 : $0 + ";" }.joined(separator: "\n") + "\n```\n\n</details>\n"
            }
        }
        return out
    }

    /// Text in a Markdown table cell: `|` escaped, line breaks as spaces, code in backquotes kept.
    private static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
