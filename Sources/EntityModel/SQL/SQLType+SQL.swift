import TypedSQL

extension SQLType {
    /// The type as DDL names it: its built-in name as written, or for an enum of the model, the
    /// type in the tenant's schema (`"tenant_acme"."order_status"`), so nothing depends on `search_path`.
    public var sql: SQL {
        if let enumName { return "\(table: enumName)" }
        return "\(raw: rawValue)"
    }
}

extension EnumType {
    /// `CREATE TYPE <schema>."name" AS ENUM ('a', 'b')`.
    public var creation: SQL {
        "CREATE TYPE \(table: name) AS ENUM (\(values.map { "\(literal: $0)" as SQL }, joinedBy: ", "))"
    }
}
