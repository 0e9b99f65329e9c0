extension SQLQuoting {
    /// `"schema"."name"`.
    public func qualified(_ schema: String, _ name: String) -> String {
        quoteIdentifier(schema) + "." + quoteIdentifier(name)
    }

    /// `"a", "b"`.
    public func columnList(_ columns: [String]) -> String {
        columns.map(quoteIdentifier).joined(separator: ", ")
    }
}
