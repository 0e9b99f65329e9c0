@_exported import TypedSQL

extension Statement {
    /// `sql` for the tenant schema `schema`: names quoted, values (`bind:`) sent as parameters; or,
    /// for an `sql` of literal text with `$1`, `$2`, …, `parameters` sent for them.
    ///
    /// Without a schema, `sql` must not name the tenant's (``SQL/schema``, `table:`): that is a
    /// programming error, and stops the program. `sql` takes its values either as `bind:`
    /// interpolations or as `parameters`, not both.
    public init(_ sql: SQL, schema: String? = nil, _ parameters: [(any PQEncodable)?] = []) {
        let (text, values) = sql.rendered(schema: schema)
        precondition(values.isEmpty || parameters.isEmpty, "a statement takes bind: values or $n parameters, not both: \(sql)")
        self.init(unsafeSQL: text, binds: values.isEmpty ? parameters.map { $0?.postgresBind ?? .null } : values.map(\.bind))
    }

    /// `sql` for `schema` with its `bind:` values inline as string constants and no parameters: for
    /// statements that take none (`DECLARE … CURSOR FOR`, `PREPARE … AS`), or a text that must be
    /// the same whatever the values.
    public init(inlining sql: SQL, schema: String? = nil) {
        self.init(unsafeSQL: sql.renderedInline(schema: schema))
    }

    /// `sql` (literal text with `$1`, `$2`, …, and names) with parameters already in wire form.
    public init(_ sql: SQL, schema: String? = nil, binds: [PQBind]) {
        let (text, values) = sql.rendered(schema: schema)
        precondition(values.isEmpty, "a statement takes bind: values or $n parameters, not both: \(sql)")
        self.init(unsafeSQL: text, binds: binds)
    }
}

extension SQL {
    /// The text with `$n` for each value, and the values: for `schema`, or, without one, for a
    /// statement that must not name the tenant's schema.
    func rendered(schema: String?) -> (text: String, values: [SQLValue]) {
        precondition(schema != nil || !usesTenantSchema, "the statement names the tenant's schema but none was given: \(self)")
        return parameterized(schema: schema ?? "")
    }

    /// The text with every value inline as a literal, for the simple protocol (scripts, COPY).
    func renderedInline(schema: String?) -> String {
        precondition(schema != nil || !usesTenantSchema, "the statement names the tenant's schema but none was given: \(self)")
        return text(schema: schema ?? "")
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
