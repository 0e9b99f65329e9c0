import TypedSQL

extension ModelSequence {
    /// `CREATE SEQUENCE <schema>."name" AS bigint START WITH 1 INCREMENT BY 50`.
    public var creation: SQL {
        "CREATE SEQUENCE \(table: name) AS \(raw: type.rawValue) START WITH \(raw: String(start)) INCREMENT BY \(raw: String(increment))"
    }
}
