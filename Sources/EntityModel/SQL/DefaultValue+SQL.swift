import TypedSQL

extension DefaultValue {
    /// This default as an SQL expression for a `DEFAULT` clause: numbers and Booleans bare, everything
    /// else as a quoted literal with a cast where the type is not text: `'Other'`, `42`, `true`,
    /// `'2024-01-01T00:00:00Z'::timestamptz`, `'{}'::jsonb`.
    ///
    /// - Parameter type: The column's type, used to cast non-finite floating-point values.
    public func sql(for type: SQLType) -> SQL {
        switch self {
        case .string(let value): "\(literal: value)"
        case .integer(let value): "\(int: value)"
        case .decimal(let value): "\(decimal: value)"
        case .floatingPoint(let value):
            value.isFinite ? "\(double: value)" : "\(double: value)\(type.cast)"
        case .bool(let value): value ? "true" : "false"
        case .date(let value): "\(literal: value)::timestamptz"
        case .uuid(let value): "\(literal: value)::uuid"
        case .binary(let bytes): "\(literal: "\\x" + bytes.hexString)::bytea"
        case .json(let value): "\(literal: value)::jsonb"
        case .expression(let value): qualifiedNextval ?? SQL(modelExpression: value)
        }
    }

    /// ``sql(for:)`` as text.
    public func sqlExpression(for type: SQLType, quoting quoter: some SQLQuoting) -> String {
        sql(for: type).text(schema: "", quoting: quoter)
    }
}
