import TypedSQL

/// A connection quotes through libpq, so it can render typed SQL.
extension Connection: SQLQuoting {}

extension Connection {

    /// Runs `statements` in the tenant schema `schema` as one pipeline: one round trip.
    @discardableResult
    public func pipeline(_ statements: [SQL], schema: String) throws -> [QueryResult] {
        try pipeline(statements.map { Statement($0, schema: schema) })
    }
}
