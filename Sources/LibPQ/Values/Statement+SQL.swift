import TypedSQL

extension Statement {
    /// `sql` for the tenant schema `schema`: names quoted, values sent as parameters.
    public init(_ sql: SQL, schema: String) {
        let (text, values) = sql.parameterized(schema: schema)
        self.init(text, binds: values.map(\.bind))
    }
}

extension SQLValue {
    /// The value in libpq's wire form.
    public var bind: PQBind {
        switch self {
        case .null: .null
        case let .text(text): .text(text, typeOID: PQOID.text)
        case let .integer(number): number.postgresBind
        case let .boolean(flag): flag.postgresBind
        }
    }
}
