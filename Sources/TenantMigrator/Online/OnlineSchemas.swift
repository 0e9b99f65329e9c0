import LibPQ

/// The migrator's own schemas around one tenant while it migrates online, named after the OID of
/// the tenant's schema (stable: the tenant's schema itself never moves, only its tables do):
///
/// - `_tm_online_<oid>`: the shadow tables, the change log, the run's state and the capture
///   function; dropped once the cutover committed, or by the next run after a crash;
/// - `_tm_delta_<oid>`: one catch-up round's rows, created and dropped inside the round's transaction;
/// - `_tm_retired_<oid>`: the tables the last cutover replaced, kept until the next online
///   migration of the tenant, `archive prune`, or the tenant's drop.
///
/// Each is created by the migrator with no right for any other role (``createPrivate(_:on:)``), so
/// the tenant's app role cannot even name what is inside.
struct OnlineSchemas: Sendable, Hashable {
    /// The tenant's schema.
    let tenant: String
    let work: String
    let delta: String
    let retired: String

    init(tenant: String, oid: UInt32) {
        self.tenant = tenant
        work = "_tm_online_\(oid)"
        delta = "_tm_delta_\(oid)"
        retired = "_tm_retired_\(oid)"
    }

    /// The names for the tenant schema `tenant`, which must exist.
    static func of(_ tenant: String, on connection: Connection) throws -> OnlineSchemas {
        guard let oid = try connection.execute("SELECT oid::pg_catalog.int8 FROM pg_catalog.pg_namespace WHERE nspname = $1", [tenant])
            .first?.decode(Int64.self, at: 0) else {
            throw PQError(kind: .server, message: "schema \(tenant) does not exist", sqlState: SQLState(rawValue: "3F000"))
        }
        return OnlineSchemas(tenant: tenant, oid: UInt32(oid))
    }

    /// Creates `schema` for the migrator alone: whatever default privileges would give other
    /// roles on it is revoked at once.
    static func createPrivate(_ schema: String, on connection: Connection) throws {
        let quoted = connection.quoteIdentifier(schema)
        try connection.execute("CREATE SCHEMA \(quoted)")
        let grantees = try connection.execute("""
            SELECT DISTINCT CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END
            FROM pg_catalog.pg_namespace n, pg_catalog.aclexplode(n.nspacl) a
            WHERE n.nspname = $1 AND a.grantee <> n.nspowner
            """, [schema]).map { try $0.decode(String.self, at: 0) }
        for grantee in grantees { try connection.execute("REVOKE ALL ON SCHEMA \(quoted) FROM \(grantee)") }
    }

    /// Whether `schema` exists.
    static func exists(_ schema: String, on connection: Connection) throws -> Bool {
        try connection.execute("SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1)", [schema])
            .first?.decode(Bool.self, at: 0) ?? false
    }

    /// Drops `schema` and everything in it, if it exists.
    static func drop(_ schema: String, on connection: Connection) throws {
        try connection.execute("DROP SCHEMA IF EXISTS \(connection.quoteIdentifier(schema)) CASCADE")
    }

    /// Drops every schema an online run of the tenant in schema `tenant` may have left, the
    /// retired tables included (with the tenant's drop).
    static func dropAll(forTenantSchema tenant: String, on connection: Connection) throws {
        guard try exists(tenant, on: connection) else { return }
        let schemas = try of(tenant, on: connection)
        for schema in [schemas.work, schemas.delta, schemas.retired] { try drop(schema, on: connection) }
    }
}
