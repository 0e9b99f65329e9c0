import EntityModel
import LibPQ

extension Statement {
    /// `sql` for the tenant schema `schema`: its values as parameters.
    init(_ sql: SQL, schema: String) {
        let (text, values) = sql.parameterized(schema: schema)
        self.init(text, binds: values.map(\.bind))
    }
}

extension SQLValue {
    /// The value in libpq's wire form.
    var bind: PQBind {
        switch self {
        case .null: .null
        case let .text(text): .text(text, typeOID: PQOID.text)
        case let .integer(number): number.postgresBind
        case let .boolean(flag): flag.postgresBind
        }
    }
}

extension Connection {
    /// Runs `sql` in the tenant schema `schema`, its values sent as parameters.
    @discardableResult
    func execute(_ sql: SQL, schema: String) throws -> QueryResult {
        try execute(Statement(sql, schema: schema))
    }

    /// Runs `statements` in the tenant schema `schema` as one pipeline: one round trip.
    @discardableResult
    func pipeline(_ statements: [SQL], schema: String) throws -> [QueryResult] {
        try pipeline(statements.map { Statement($0, schema: schema) })
    }
}
