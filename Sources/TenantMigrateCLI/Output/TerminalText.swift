import EntityModel

/// What the commands print, made safe for a terminal: names and messages can come from elsewhere
/// (an imported bundle, a schema, a model file), and a carriage return, an escape sequence or a
/// bidirectional override in one would rewrite what the terminal shows. Every control character is
/// escaped (``VisibleText``) but the output's own line feeds and tabs, and the colours
/// ``TextStyle`` adds.
enum TerminalText {
    /// The escape sequences ``TextStyle`` writes, kept as they are.
    private static let styles: [[Unicode.Scalar]] = ["\u{1B}[0m", "\u{1B}[1m", "\u{1B}[2m", "\u{1B}[31m", "\u{1B}[32m", "\u{1B}[33m"]
        .map { Array($0.unicodeScalars) }

    /// `text` with control characters escaped but line feeds, tabs and ``TextStyle``'s colours.
    static func lines(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: VisibleText.isControl) else { return text }
        let scalars = Array(text.unicodeScalars)
        var out = ""
        var start = 0, index = 0
        while index < scalars.count {
            guard scalars[index] == "\u{1B}", let style = styles.first(where: { scalars[index...].starts(with: $0) }) else {
                index += 1
                continue
            }
            out += VisibleText.escaped(String(String.UnicodeScalarView(scalars[start..<index])), keeping: ["\n", "\t"])
            out.unicodeScalars.append(contentsOf: style)
            index += style.count
            start = index
        }
        return out + VisibleText.escaped(String(String.UnicodeScalarView(scalars[start...])), keeping: ["\n", "\t"])
    }

    /// `text` on one line: every control character escaped, line feeds too.
    static func line(_ text: String) -> String {
        VisibleText.escaped(text)
    }
}
