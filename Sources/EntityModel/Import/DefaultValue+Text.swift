extension DefaultValue {
    /// The default a version file gives for `text` in an attribute of `type`, or nil when the text
    /// is not a value of that type. Numbers and Booleans are read as written plain (`42`, `true`),
    /// everything else as written in quotes; the result is canonical, as if loaded from a file.
    public static func parsing(_ text: String, as type: AttributeType) -> DefaultValue? {
        let isPlain = [.int16, .int32, .int64, .double, .float, .bool].contains(type)
        return try? parse(Written(text: text, isQuoted: !isPlain), as: type).get()
    }
}
