/// Helpers for the canonical serialization behind version hashes.
enum CanonicalText {
    /// `value` in double quotes, with `"`, `\` and control characters escaped, so that no value can
    /// be confused with the separators around it.
    static func quoted(_ value: String) -> String {
        quoted(value, alsoEscaping: { _ in false })
    }

    /// `value` quoted as by ``quoted(_:)``, with the scalars `alsoEscaping` names written as
    /// `\uXXXX` too (the YAML writer escapes what YAML does not print).
    static func quoted(_ value: String, alsoEscaping: (Unicode.Scalar) -> Bool) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || alsoEscaping(scalar) {
                    out += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// `quoted(value)`, or `-` for no value.
    static func optional(_ value: String?) -> String {
        value.map(quoted) ?? "-"
    }

    /// `1` or `0`.
    static func flag(_ value: Bool) -> String { value ? "1" : "0" }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
