import LibPQ
import TypedSQL

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
/// the tenant's app role cannot even name what is inside. The names can be guessed (the OID is
/// public), and a role with CREATE on the database may make a schema of that name first, so a
/// private schema is read or dropped only once it is found to be the migrator's
/// (``existsAsOwn(_:on:)``: owned by `current_user`, no other role may create in it), and
/// ``createPrivate(_:on:)`` refuses one that exists.
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
        guard let oid = try connection.execute("SELECT oid::pg_catalog.int8 FROM pg_catalog.pg_namespace WHERE nspname = \(bind: tenant)")
            .first?.decode(Int64.self, at: 0) else {
            throw PQError(kind: .server, message: "schema \(tenant) does not exist", sqlState: SQLState(rawValue: "3F000"))
        }
        return OnlineSchemas(tenant: tenant, oid: UInt32(oid))
    }

    /// Creates `schema` for the migrator alone: whatever default privileges would give other
    /// roles on it is revoked at once. A schema of that name another role made first is refused
    /// by name (``ForeignOnlineSchema``); one made meanwhile fails the `CREATE SCHEMA`.
    static func createPrivate(_ schema: String, on connection: Connection) throws {
        _ = try existsAsOwn(schema, on: connection)
        try connection.execute("CREATE SCHEMA \(id: schema)")
        let grantees = try connection.execute("""
            SELECT DISTINCT CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END
            FROM pg_catalog.pg_namespace n, pg_catalog.aclexplode(n.nspacl) a
            WHERE n.nspname = \(bind: schema) AND a.grantee <> n.nspowner
            """).map { try $0.decode(String.self, at: 0) }
        for grantee in grantees { try connection.execute("REVOKE ALL ON SCHEMA \(id: schema) FROM \(quotedByServer: grantee)") }
    }

    /// Whether `schema` (the tenant's) exists.
    static func exists(_ schema: String, on connection: Connection) throws -> Bool {
        try connection.execute("SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = \(bind: schema))")
            .first?.decode(Bool.self, at: 0) ?? false
    }

    /// Who owns `schema` and who else may create objects in it, or nil when it does not exist.
    static func ownership(of schema: String, on connection: Connection) throws -> SchemaOwnership? {
        guard let row = try connection.execute("""
            SELECT pg_catalog.pg_get_userbyid(n.nspowner)::pg_catalog.text, pg_catalog.pg_get_userbyid(n.nspowner) = CURRENT_USER,
                   coalesce((SELECT pg_catalog.string_agg(CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE pg_catalog.pg_get_userbyid(a.grantee)::pg_catalog.text END, ', ')
                             FROM pg_catalog.aclexplode(n.nspacl) AS a WHERE a.grantee <> n.nspowner AND a.privilege_type = 'CREATE'), '')
            FROM pg_catalog.pg_namespace AS n WHERE n.nspname = \(bind: schema)
            """).first else { return nil }
        return SchemaOwnership(
            schema: schema, owner: try row.decode(String.self, at: 0), ownedByMigrator: try row.decode(Bool.self, at: 1),
            otherCreators: try row.decode(String.self, at: 2)
        )
    }

    /// Whether the private schema `schema` exists: it is then the migrator's (owned by
    /// `current_user`, and no other role may create in it), so nobody else can have put or swapped
    /// anything in it.
    ///
    /// - Throws: ``ForeignOnlineSchema`` when a schema of that name is anyone else's.
    static func existsAsOwn(_ schema: String, on connection: Connection) throws -> Bool {
        guard let ownership = try ownership(of: schema, on: connection) else { return false }
        guard ownership.ownedByMigrator, ownership.otherCreators.isEmpty else { throw ForeignOnlineSchema(ownership: ownership) }
        return true
    }

    /// Drops the private schema `schema` and everything in it, if it exists (and is the migrator's).
    static func drop(_ schema: String, on connection: Connection) throws {
        guard try existsAsOwn(schema, on: connection) else { return }
        try connection.execute("DROP SCHEMA \(id: schema) CASCADE")
    }

    /// Drops every schema an online run of the tenant in schema `tenant` may have left, the
    /// retired tables included (with the tenant's drop).
    static func dropAll(forTenantSchema tenant: String, on connection: Connection) throws {
        guard try exists(tenant, on: connection) else { return }
        let schemas = try of(tenant, on: connection)
        for schema in [schemas.work, schemas.delta] { try drop(schema, on: connection) }
        try dropRetired(schemas.retired, on: connection)
    }

    /// Drops the retired tables' schema `schema`, if it exists and is the migrator's, unless
    /// something outside it depends on what is in it (``RetiredTablesInUse``): `CASCADE` would drop
    /// that too.
    static func dropRetired(_ schema: String, on connection: Connection) throws {
        guard try existsAsOwn(schema, on: connection) else { return }
        let objects = try RetiredTablesInUse.find(in: schema, on: connection)
        if !objects.isEmpty { throw RetiredTablesInUse(schema: schema, objects: objects) }
        try connection.execute("DROP SCHEMA \(id: schema) CASCADE")
    }
}

/// Who owns a schema, and which other roles may create objects in it.
struct SchemaOwnership {
    let schema: String
    let owner: String
    /// Whether `current_user` owns it.
    let ownedByMigrator: Bool
    /// The other roles (`PUBLIC` included) with CREATE on it, as a list for people (empty: none).
    let otherCreators: String
}

/// A schema named like one of an online run's private schemas (``OnlineSchemas``) that is not the
/// migrator's: another role made it, or may create objects in it. What is inside could run that
/// role's code with the migrator's rights, so the migrator neither reads nor drops it.
public struct ForeignOnlineSchema: Error, Sendable, CustomStringConvertible {
    public let schema: String
    public let owner: String
    /// Whether the migrator owns it (then other roles may create in it).
    public let ownedByMigrator: Bool
    /// The other roles that may create objects in it (empty: none).
    public let otherCreators: String

    init(ownership: SchemaOwnership) {
        schema = ownership.schema
        owner = ownership.owner
        ownedByMigrator = ownership.ownedByMigrator
        otherCreators = ownership.otherCreators
    }

    public var description: String {
        let why = !ownedByMigrator ? "is owned by \(owner), not by the migrator"
            : "lets \(otherCreators) create objects in it"
        return "schema \(schema) has the name of an online migration's private schema but \(why): the migrator neither reads "
            + "nor drops it. Drop it (as its owner or a superuser), check what else that role made, then run again"
    }
}
