import EntityModel

/// Text from the models (names, defaults, SQL) placed in a Markdown document as text, never as
/// Markdown or HTML: whatever a model holds, the document renders what it says.
enum MarkdownText {
    /// `text` as inline Markdown on one line: `&`, `<` and `>` as HTML entities (so no tag or
    /// entity survives, in any renderer), every Markdown metacharacter escaped with a backslash
    /// (emphasis, code, links, tables, and at the start a heading, list, quote or rule), each line
    /// break as a space and other control characters escaped (``VisibleText``).
    static func inline(_ text: String) -> String {
        var out = ""
        for scalar in VisibleText.escaped(singleLine(text)).unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\\", "`", "*", "_", "[", "]", "|", "~", "#", "!": out += "\\" + String(scalar)
            default: out.unicodeScalars.append(scalar)
            }
        }
        // A line that starts like a list item, a numbered item, a rule or a setext underline.
        if let first = out.unicodeScalars.first, "-+=".unicodeScalars.contains(first) { out = "\\" + out }
        if let number = out.prefixMatch(of: /[0-9]+(?=[.)])/) { out.insert("\\", at: number.range.upperBound) }
        return out
    }

    /// A fenced code block of `body` (`language` after the opening fence): the fence is a run of
    /// backquotes longer than any in the body, so nothing in it can close the block early, and
    /// control characters but line feeds and tabs are escaped (``VisibleText``), so no carriage
    /// return starts a line Markdown would read as a fence.
    static func fenced(_ body: String, language: String) -> String {
        let body = VisibleText.escaped(body, keeping: ["\n", "\t"])
        let longest = body.split(whereSeparator: { $0 != "`" }).map(\.count).max() ?? 0
        let fence = String(repeating: "`", count: max(3, longest + 1))
        let text = body.hasSuffix("\n") ? body : body + "\n"
        return fence + language + "\n" + text + fence + "\n"
    }

    /// `text` with every line break (LF, CR, CRLF, NEL, LS, PS) as one space.
    private static func singleLine(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            defer { previousWasCR = scalar == "\r" }
            switch scalar {
            case "\n" where previousWasCR: continue
            case "\n", "\r", "\u{85}", "\u{2028}", "\u{2029}": out.append(" ")
            default: out.append(scalar)
            }
        }
        return String(out)
    }
}
