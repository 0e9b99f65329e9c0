import TypedSQL

extension CheckConstraint.Condition {
    /// The condition: `"entity" IN ('A', 'B')` or `"entity" NOT IN ('A') OR "col" IS NOT NULL`.
    public var sql: SQL {
        switch self {
        case .isOneOf(let column, let values):
            "\(id: column) IN (\(values.map { "\(literal: $0)" }, joinedBy: ", "))"
        case .requiredForEntities(let column, let discriminator, let entities):
            "\(id: discriminator) NOT IN (\(entities.map { "\(literal: $0)" }, joinedBy: ", ")) OR \(id: column) IS NOT NULL"
        case .expression(let condition, _):
            SQL(modelExpression: condition)
        }
    }

    /// ``sql`` as text.
    public func sql(quoting quoter: some SQLQuoting) -> String {
        sql.text(schema: "", quoting: quoter)
    }
}
