import EntityModel

extension SQLType {
    /// The length of `character varying(n)`, the only bounded character type the inference changes
    /// to: nil for any other type.
    ///
    /// A value changes to such a type without an explicit cast (`USING "name"`, an assignment cast),
    /// because an explicit cast to `varchar(n)` cuts a longer value silently, where the assignment
    /// fails with 22001 (SchemaOperation.swift).
    var characterLength: Int? {
        rawValue.wholeMatch(of: /character varying\(([0-9]+)\)/).flatMap { Int($0.1) }
    }
}
