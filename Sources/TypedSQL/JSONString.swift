/// Double-quoted string literals with JSON's escapes, in the three styles the tool writes them:
/// each one's output feeds something that must not change by a byte (version hashes, the
/// archive's recorded way back, keys compared with jsonb's own text), so the styles differ in
/// exactly what those writers always did.
public enum JSONString {
    /// What a literal escapes beyond `"`, `\` and the control characters, and how.
    public struct Style: Sendable {
        /// U+0008 and U+000C as `\b` and `\f` (otherwise `\u0008`, `\u000c`).
        let shortBackspaceAndFormFeed: Bool
        /// DEL (U+007F) escaped too.
        let escapesDelete: Bool
        /// The hex digits of `\u` escapes in upper case.
        let upperCaseHex: Bool

        /// The canonical text behind version hashes, and PQJSON's: `\n`, `\r`, `\t`, other control
        /// characters as `\u00xx`.
        public static let canonical = Style(shortBackspaceAndFormFeed: false, escapesDelete: false, upperCaseHex: false)
        /// As jsonb writes strings: `\b`, `\f`, `\n`, `\r`, `\t`, other control characters as `\u00xx`.
        public static let jsonb = Style(shortBackspaceAndFormFeed: true, escapesDelete: false, upperCaseHex: false)
        /// The archive's recorded way back: DEL escaped too, `\u00XX` in upper case.
        public static let recorded = Style(shortBackspaceAndFormFeed: false, escapesDelete: true, upperCaseHex: true)
    }

    /// `value` in double quotes, with `"`, `\` and control characters escaped as `style` says, and
    /// the scalars `alsoEscaping` names written as `\u` escapes too.
    public static func quoted(_ value: String, _ style: Style = .canonical, alsoEscaping: (Unicode.Scalar) -> Bool = { _ in false }) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{8}" where style.shortBackspaceAndFormFeed: out += "\\b"
            case "\u{C}" where style.shortBackspaceAndFormFeed: out += "\\f"
            default:
                if scalar.value < 0x20 || (style.escapesDelete && scalar.value == 0x7F) || alsoEscaping(scalar) {
                    let hex = String(scalar.value, radix: 16, uppercase: style.upperCaseHex)
                    out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
