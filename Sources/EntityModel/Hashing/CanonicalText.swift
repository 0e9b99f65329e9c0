import TypedSQL

/// Helpers for the canonical serialization behind version hashes.
enum CanonicalText {
    /// `value` in double quotes, with `"`, `\` and control characters escaped, so that no value can
    /// be confused with the separators around it (``JSONString/Style/canonical``).
    static func quoted(_ value: String) -> String {
        JSONString.quoted(value)
    }

    /// `value` quoted as by ``quoted(_:)``, with the scalars `alsoEscaping` names written as
    /// `\uXXXX` too (the YAML writer escapes what YAML does not print).
    static func quoted(_ value: String, alsoEscaping: (Unicode.Scalar) -> Bool) -> String {
        JSONString.quoted(value, alsoEscaping: alsoEscaping)
    }

    /// `quoted(value)`, or `-` for no value.
    static func optional(_ value: String?) -> String {
        value.map(quoted) ?? "-"
    }

    /// `1` or `0`.
    static func flag(_ value: Bool) -> String { value ? "1" : "0" }
}
