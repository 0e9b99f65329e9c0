/// Checks that a Markdown document shows text from elsewhere as text: outside code blocks no raw
/// `<` (but the document's own `<details>` and `<summary>`), no link, heading or quote that the
/// text made; every fence closed only by a run of backquotes as long as the one that opened it,
/// with no such run inside.
public enum MarkdownSafety {
    /// The tags the plan documents write themselves.
    static let ownTags = ["<details><summary>", "</summary>", "</details>"]

    /// What is wrong with `markdown`, one sentence each; empty when nothing is. `headings` are the
    /// prefixes of the document's own heading lines.
    public static func problems(in markdown: String, headings: [String]) -> [String] {
        var problems: [String] = []
        var fence: Int?
        // CommonMark ends a line at LF, CR or CRLF.
        let lines = markdown.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n").components(separatedBy: "\n")
        for line in lines {
            let run = line.prefix { $0 == "`" }.count
            if let open = fence {
                if run >= open && line.allSatisfy({ $0 == "`" }) { fence = nil; continue }
                let longest = line.split(whereSeparator: { $0 != "`" }).map(\.count).max() ?? 0
                if longest >= open { problems.append("a run of \(longest) backquotes inside a fence of \(open): \(line)") }
                continue
            }
            if run >= 3 { fence = run; continue }
            var rest = line
            for tag in ownTags { rest = rest.replacingOccurrences(of: tag, with: "") }
            if rest.contains("<") { problems.append("raw < outside code: \(line)") }
            if rest.contains("](") && !rest.contains("\\]") { problems.append("a link: \(line)") }
            if line.hasPrefix("#") && !headings.contains(where: { line.hasPrefix($0) }) { problems.append("a heading: \(line)") }
            if line.hasPrefix(">") { problems.append("a quote: \(line)") }
        }
        if fence != nil { problems.append("a fence is never closed") }
        return problems
    }
}
