/// Text from elsewhere (an imported schema's or bundle's names, a model's defaults) made safe to
/// show where a control character would act rather than show: in a YAML comment, which any line
/// break ends; on a terminal, where a carriage return or an escape sequence rewrites what is shown;
/// in a Markdown line.
public enum VisibleText {
    /// Whether `scalar` acts rather than shows: the C0 and C1 controls (line feed, carriage return
    /// and NEL among them), DEL, the line and paragraph separators, the bidirectional controls, the
    /// byte-order mark and the non-characters U+FFFE and U+FFFF.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00..<0x20, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0xFEFF, 0xFFFE, 0xFFFF: true
        default: false
        }
    }

    /// `text` with every control character (``isControl(_:)``) but those in `kept` written as an
    /// escape: `\n`, `\r`, `\t`, else `\u{202E}`. Text without one is returned as it is.
    public static func escaped(_ text: String, keeping kept: Set<Unicode.Scalar> = []) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) && !kept.contains($0) }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isControl(scalar), !kept.contains(scalar) else {
                out.append(scalar)
                continue
            }
            let escape = switch scalar {
            case "\n": "\\n"
            case "\r": "\\r"
            case "\t": "\\t"
            default: "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
            out.append(contentsOf: escape.unicodeScalars)
        }
        return String(out)
    }

    /// `text` as lines of `#` comments: split at its line feeds only, every other control character
    /// escaped, so that no line break YAML knows (CR, NEL, LS, PS) ends a comment early and nothing
    /// YAML refuses reaches the file.
    static func yamlComments(_ lines: [String]) -> [String] {
        lines.flatMap { $0.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) }.map { scalars in
            let line = escaped(String(String.UnicodeScalarView(scalars)))
            return line.isEmpty ? "#" : "# " + line
        }
    }
}
