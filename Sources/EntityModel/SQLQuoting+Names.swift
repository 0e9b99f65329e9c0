extension SQLQuoting {
    /// `"schema"."name"`.
    func qualified(_ schema: String, _ name: String) -> String {
        quoteIdentifier(schema) + "." + quoteIdentifier(name)
    }

    /// `"a", "b"`.
    func columnList(_ columns: [String]) -> String {
        columns.map(quoteIdentifier).joined(separator: ", ")
    }
}
