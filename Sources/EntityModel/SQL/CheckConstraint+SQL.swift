extension CheckConstraint.Condition {
    /// The condition as SQL: `"entity" IN ('A', 'B')` or `"entity" NOT IN ('A') OR "col" IS NOT NULL`.
    public func sql(quoting quoter: some SQLQuoting) -> String {
        switch self {
        case .isOneOf(let column, let values):
            "\(quoter.quoteIdentifier(column)) IN (\(values.map(quoter.quoteLiteral).joined(separator: ", ")))"
        case .requiredForEntities(let column, let discriminator, let entities):
            "\(quoter.quoteIdentifier(discriminator)) NOT IN (\(entities.map(quoter.quoteLiteral).joined(separator: ", "))) "
                + "OR \(quoter.quoteIdentifier(column)) IS NOT NULL"
        }
    }
}
