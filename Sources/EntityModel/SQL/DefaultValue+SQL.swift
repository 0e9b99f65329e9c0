extension DefaultValue {
    /// This default as an SQL expression for a `DEFAULT` clause: numbers and Booleans bare, everything
    /// else as a quoted literal with a cast where the type is not text: `'Other'`, `42`, `true`,
    /// `'2024-01-01T00:00:00Z'::timestamptz`, `'{}'::jsonb`.
    ///
    /// - Parameter type: The column's type, used to cast non-finite floating-point values.
    public func sqlExpression(for type: SQLType, quoting quoter: some SQLQuoting) -> String {
        switch self {
        case .string(let value): quoter.quoteLiteral(value)
        case .integer(let value): String(value)
        case .decimal(let value): value
        case .floatingPoint(let value):
            value.isFinite ? "\(value)" : quoter.quoteLiteral(value > 0 ? "Infinity" : "-Infinity") + "::" + type.rawValue
        case .bool(let value): value ? "true" : "false"
        case .date(let value): quoter.quoteLiteral(value) + "::timestamptz"
        case .uuid(let value): quoter.quoteLiteral(value) + "::uuid"
        case .binary(let bytes): quoter.quoteLiteral("\\x" + bytes.hexString) + "::bytea"
        case .json(let value): quoter.quoteLiteral(value) + "::jsonb"
        }
    }
}
