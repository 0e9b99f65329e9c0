/// One domain of a ``SchemaSnapshot``: a named type over a base type with its own NOT NULL,
/// default and checks. The model does not carry domains; the import keeps a domain column's base
/// type and names the domain and what it leaves out (``ImportPlan``).
public struct DomainSnapshot: Codable, Equatable, Sendable {
    /// The domain's name as `format_type` prints a column of it (unqualified in its own schema).
    public var name: String
    /// The base type, with its length or precision (`character varying(255)`).
    public var baseType: String
    /// Whether the domain is NOT NULL.
    public var isNotNull: Bool
    /// The domain's default, as `pg_get_expr` prints it.
    public var defaultExpression: String?
    /// Its checks, as `pg_get_constraintdef` prints them (`CHECK ((VALUE > 0))`), sorted.
    public var checks: [String]

    public init(name: String, baseType: String, isNotNull: Bool = false, defaultExpression: String? = nil, checks: [String] = []) {
        self.name = name
        self.baseType = baseType
        self.isNotNull = isNotNull
        self.defaultExpression = defaultExpression
        self.checks = checks.sorted()
    }

    /// What the domain adds to its base type, for a note: `NOT NULL DEFAULT 1 CHECK ((VALUE > 0))`.
    public var constraintsText: String {
        ((isNotNull ? ["NOT NULL"] : []) + (defaultExpression.map { ["DEFAULT \($0)"] } ?? []) + checks).joined(separator: " ")
    }
}
