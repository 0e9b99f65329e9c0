import LibPQ

/// A model version's SQL expression (a default, a check, an index key or condition) resolves to a
/// function, operator, type or collation that a role other than a superuser or the migrator owns,
/// or to a function or operator in a schema where such a role may create objects (so that a
/// better match planted there would be called instead). PostgreSQL would run it with the
/// migrator's rights, so the migrator refuses the version before its DDL runs
/// (``ExpressionTrust``). SQLSTATE 42501.
public struct UntrustedExpression: Error, Sendable, CustomStringConvertible {
    /// One thing an expression uses that the migrator does not trust.
    public struct Finding: Sendable, Hashable {
        /// Where the model says it: `Shop/v2.yaml:9: the defaultExpression of Item.tag (`public.code_for(7)`)`.
        public let place: String
        /// The object, as `pg_describe_object` names it: `function public.code_for(integer)`.
        public let object: String
        /// Its owner.
        public let owner: String
        /// Whether the owner is a superuser or the migrator.
        public let ownerIsTrusted: Bool
        /// A role other than a superuser or the migrator that may create objects in its schema.
        public let creator: String?
        /// Its schema.
        public let schema: String

        public var description: String {
            var text = "\(place) uses \(object), owned by \(owner)"
            if !ownerIsTrusted { text += ", a role that is neither a superuser nor the migrator" }
            if let creator { text += ", in schema \(schema), where \(creator) may create objects (a better match planted there would be called instead)" }
            return text
        }
    }

    /// What was found, one per expression and object.
    public let findings: [Finding]

    public init(findings: [Finding]) {
        self.findings = findings
    }

    /// `42501`, insufficient privilege.
    public var sqlState: SQLState { "42501" }

    public var description: String {
        findings.map(\.description).joined(separator: "; ")
            + ". PostgreSQL would run it with the migrator's rights, so the migrator refuses (SQLSTATE \(sqlState)). "
            + "Use functions, operators and types owned by a superuser or the migrator, in a schema where no other role may create "
            + "objects (REVOKE CREATE ON SCHEMA … FROM PUBLIC), and see docs/Security.md"
    }
}
