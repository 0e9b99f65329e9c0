/// How the model writer spells scalars in YAML, so that the loader reads back exactly what was
/// written: names stay plain where YAML would not read them as something else, text is double-quoted
/// with escapes.
enum YAMLScalar {
    /// Words YAML 1.1 reads as null or as a Boolean when they are not quoted.
    private static let specialWords: Set<String> = ["~", "null", "true", "false", "yes", "no", "on", "off", "y", "n"]

    /// `name` as it is, when it is an identifier YAML reads as a plain string; otherwise quoted.
    static func name(_ name: String) -> String {
        let isPlain = name.wholeMatch(of: /[A-Za-z_][A-Za-z0-9_]*/) != nil && !specialWords.contains(name.lowercased())
        return isPlain ? name : quoted(name)
    }

    /// A version name: letters, digits, `_`, `.` and `-`; quoted when YAML would read it as a
    /// number or a special word (`1.0`, `2`, `on`).
    static func versionName(_ name: String) -> String {
        let isPlain = name.wholeMatch(of: /[A-Za-z][A-Za-z0-9_.-]*/) != nil && !specialWords.contains(name.lowercased())
        return isPlain ? name : quoted(name)
    }

    /// `text` in double quotes, with `\`, `"`, control characters and the characters YAML does not
    /// print or that act rather than show (DEL, the C1 controls, the byte-order mark, line and
    /// paragraph separators, bidirectional controls, U+FFFE and U+FFFF: ``VisibleText/isControl(_:)``)
    /// escaped.
    static func quoted(_ text: String) -> String {
        CanonicalText.quoted(text, alsoEscaping: VisibleText.isControl)
    }
}
