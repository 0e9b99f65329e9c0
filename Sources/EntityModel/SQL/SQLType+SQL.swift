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

extension SQLType {
    /// A cast to the type, to follow a value: `::numeric(12,2)`, or for an enum of the model
    /// `::text::<schema>."order_status"` (a value reaches an enum through its text; no cast leads
    /// there from another enum or from a number).
    public var cast: SQL {
        if let enumName { return "::text::\(table: enumName)" }
        return "::\(raw: rawValue)"
    }
}
