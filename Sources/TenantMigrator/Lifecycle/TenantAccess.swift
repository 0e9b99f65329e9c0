import LibPQ

/// Who owns a new tenant's objects, and which application role may use them.
///
/// The least-privilege setup (docs/Security.md): the migrator role owns every tenant schema, its
/// tables and the catalog; each tenant's application role gets `USAGE` on its schema and
/// `SELECT, INSERT, UPDATE, DELETE` on its tables (and use of its id sequences), nothing more. It
/// never gets `CREATE` on the schema, `TRIGGER`, or any right on the catalog. Tables that later
/// migrations add are covered by default privileges, so the grants never need redoing.
public struct TenantAccess: Sendable, Hashable {
    /// The role that owns the schema and its tables; nil for the connecting role.
    public var owner: String?
    /// The tenant's application role; nil for none.
    public var appRole: String?

    public init(owner: String? = nil, appRole: String? = nil) {
        self.owner = owner
        self.appRole = appRole
    }

    /// `CREATE SCHEMA` and, with an owner, the switch to that role for what follows.
    /// The statements name the tenant's schema (``SQL/schema``).
    func schemaStatements() -> [SQL] {
        guard let owner else { return ["CREATE SCHEMA \(SQL.schema)"] }
        return ["CREATE SCHEMA \(SQL.schema) AUTHORIZATION \(id: owner)", "SET LOCAL ROLE \(id: owner)"]
    }

    /// The app role's grants (after the tables exist), then back to the connecting role.
    /// The statements name the tenant's schema (``SQL/schema``).
    func grantStatements() -> [SQL] {
        var statements: [SQL] = []
        let quoted = SQL.schema
        if let appRole {
            let app: SQL = "\(id: appRole)"
            statements += [
                "GRANT USAGE ON SCHEMA \(quoted) TO \(app)",
                "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA \(quoted) TO \(app)",
                "GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA \(quoted) TO \(app)",
                "ALTER DEFAULT PRIVILEGES IN SCHEMA \(quoted) GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO \(app)",
                "ALTER DEFAULT PRIVILEGES IN SCHEMA \(quoted) GRANT USAGE, SELECT ON SEQUENCES TO \(app)",
            ]
        }
        if owner != nil { statements.append("RESET ROLE") }
        return statements
    }
}
