import EntityModel
import Foundation
import LibPQ
import TypedSQL

/// The tenant's archive: a table in the tenant's schema, `_tm_archive`, that holds every value a
/// step destroyed or overwrote, so the reverse step can give it back (compare-and-restore).
///
/// It lives with the tenant (dropped with its schema), its name starts with `_` so `verify`'s
/// snapshot skips it, and no model table refers to it. One row per archived value, keyed by the
/// adjacent pair whose change took it (`step_from` → `step_to`, also inside a fused step), the
/// table and column as that pair's source version names them (column `''` for a whole row, kept as
/// a JSON object of its columns, a jsonb value as its text), and the row id. (Releases before pair
/// keys keyed a fused step's entries by its ends; ``LegacyEntries`` rekeys them.)
///
/// | column | meaning |
/// |---|---|
/// | `value` | the value as text, which casts back to the column's type losslessly; NULL for a NULL |
/// | `left_value` | what the step left in the row: the column's value where it survives, else a JSON object of the columns a mapping derived from it |
/// | `compares` | restore only where the row still holds `left_value` (checked, and cleared, when a way back starts) |
/// | `archived_at` | when, for `archive prune` |
/// | `target` | for a link: what the row it pointed at is (``LinkTarget``), so a restore finds that row again where its table was made anew |
/// | `superseded` | a way back did not give it back (the app's change won, or its row is gone): kept, listed, restored only on request (``restoreSuperseded(inSchema:version:on:)``) |
/// | `row_key` | for a row of a table keyed otherwise than by an integer `id` (a uuid or text `id`, a natural or composite key): its key: one column's text, or a `text[]` of each key column's text (``ArchiveRowKey``); `row_id` is then 0. NULL for integer ids |
public enum TenantArchive {
    /// The archive table's name in each tenant schema.
    public static let tableName = "_tm_archive"

    /// The archive table of the tenant's schema, named when the statement is rendered.
    public static let table: SQL = "\(table: tableName)"

    /// The statements that create the archive table and its index (one statement each).
    ///
    /// `archived_at` defaults to `clock_timestamp()`, not `now()`: Citus 13 fails (42601) on an
    /// `INSERT … SELECT` into a distributed-schema table whose omitted column defaults to `now()`.
    package static let createStatements: [SQL] = [
        "CREATE TABLE \(table) (step_from text NOT NULL, step_to text NOT NULL, table_name text NOT NULL, "
            + "column_name text NOT NULL, row_id bigint NOT NULL, value text, left_value text, "
            + "compares boolean NOT NULL DEFAULT false, archived_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp(), target text, superseded boolean NOT NULL DEFAULT false, row_key text)",
        "CREATE INDEX \(objectName: tableName + "_key") ON \(table) (step_from, step_to, table_name, column_name, row_id)",
    ]

    /// Brings an archive made by an earlier release to this release's shape (the columns it added
    /// since, nullable, so every old entry reads as before); does nothing to one that has them.
    /// One statement, queued with the caller's next round trip.
    static func upgrade(inSchema schema: String, on connection: Connection) throws {
        try connection.sendWithNextRoundTrip(Statement("ALTER TABLE \(table) ADD COLUMN IF NOT EXISTS target text, "
            + "ADD COLUMN IF NOT EXISTS superseded boolean NOT NULL DEFAULT false, ADD COLUMN IF NOT EXISTS row_key text", schema: schema))
    }

    /// The column the latest ``upgrade(inSchema:on:)`` added: an archive that has it is current.
    public static let latestColumn = "row_key"

    /// The column that marks an entry superseded (read through the row's JSON where the archive
    /// may be an earlier release's, without it).
    public static let supersededColumn = "superseded"

    /// Whether the tenant's archive (found to be the migrator's own, ``exists(inSchema:on:)``) is of
    /// this release's shape: a read of the catalog (`pg_attribute`), running none of its code.
    static func isCurrent(inSchema schema: String, on connection: Connection) throws -> Bool {
        try connection.execute(
            "SELECT EXISTS (SELECT FROM pg_catalog.pg_attribute AS a WHERE a.attrelid = pg_catalog.to_regclass(\(qualifiedNameLiteral: tableName)) "
                + "AND a.attname = \(bind: latestColumn) AND NOT a.attisdropped)", schema: schema).first?.decode(Bool.self, at: 0) ?? false
    }

    /// Whether the tenant's schema has an archive: a relation of that name that is the migrator's
    /// own table (``ownershipSQL(_:)``).
    ///
    /// - Throws: ``ForeignArchive`` when the name is taken by anything else (a view, another role's
    ///   table): the migrator never reads, writes or drops it.
    public static func exists(inSchema schema: String, on connection: Connection) throws -> Bool {
        guard let row = try connection.execute(
            "SELECT \(ownershipSQL("c")) FROM pg_catalog.pg_class AS c WHERE c.oid = pg_catalog.to_regclass(\(qualifiedNameLiteral: tableName))", schema: schema
        ).first else { return false }
        try ForeignArchive.check(row, from: 0)
        return true
    }

    /// The columns that say whether the relation `c` (an alias of `pg_class`) is the migrator's own
    /// table: its kind (`relkind`), its owner's name, its qualified name, and whether it is a table
    /// (`r`) owned by `current_user`, by a superuser (another migrator role's archive: only a
    /// superuser could have made or changed it), or — for a `current_user` that is not a superuser —
    /// by a role whose rights it has (`pg_has_role(…, 'USAGE')`: a member of the role that archived,
    /// as a team that moves its migrations to a new role grants the old one to it; it may act as
    /// that owner anyway). A superuser is a member of every role, so for one only the first two
    /// count. Read by ``ForeignArchive/check(_:from:)``.
    package static func ownershipSQL(_ c: SQL) -> SQL {
        """
        \(c).relkind::pg_catalog.text, pg_catalog.pg_get_userbyid(\(c).relowner)::pg_catalog.text, \
        pg_catalog.format('%I.%I', (SELECT n.nspname FROM pg_catalog.pg_namespace AS n WHERE n.oid = \(c).relnamespace), \(c).relname), \
        (\(c).relkind = 'r' AND (pg_catalog.pg_get_userbyid(\(c).relowner) = CURRENT_USER \
            OR EXISTS (SELECT FROM pg_catalog.pg_roles AS tm_owner WHERE tm_owner.oid = \(c).relowner AND tm_owner.rolsuper) \
            OR (NOT (SELECT tm_me.rolsuper FROM pg_catalog.pg_roles AS tm_me WHERE tm_me.rolname = CURRENT_USER) \
                AND pg_catalog.pg_has_role(CURRENT_USER, \(c).relowner, 'USAGE'))))
        """
    }

    /// Locks the archive in `mode` (inside the caller's transaction) when it exists and is the
    /// migrator's own table, and checks again under the lock, which keeps it from being dropped,
    /// renamed or replaced until the transaction ends (the owner of a tenant's schema may drop
    /// what is in it). `LOCK TABLE` runs no code of a relation's.
    ///
    /// - Returns: whether the archive exists.
    /// - Throws: ``ForeignArchive``, as ``exists(inSchema:on:)``.
    @discardableResult
    public static func lockOwn(inSchema schema: String, mode: LockMode, on connection: Connection) throws -> Bool {
        guard try exists(inSchema: schema, on: connection) else { return false }
        try connection.execute("LOCK TABLE ONLY \(table) IN \(keyword: mode) MODE", schema: schema)
        return try exists(inSchema: schema, on: connection)
    }

    /// The modes the archive is locked in: to read it, and to change its entries.
    public enum LockMode: String, CaseIterable, Sendable {
        case accessShare = "ACCESS SHARE"
        case rowExclusive = "ROW EXCLUSIVE"
    }

    /// Creates the archive unless it exists.
    static func ensure(inSchema schema: String, on connection: Connection) throws {
        guard try !exists(inSchema: schema, on: connection) else { return }
        try create(inSchema: schema, on: connection)
    }

    /// Creates the archive, inside the caller's transaction, in one round trip: the table, its index
    /// and the look at its grants go out together (then a `REVOKE`, queued, only where default
    /// privileges granted something). Without `revokingDefaultGrants` (no default privileges apply
    /// in the schema, as the caller knows) the table and its index are only queued.
    static func create(inSchema schema: String, on connection: Connection, revokingDefaultGrants: Bool = true) throws {
        for statement in createStatements { try connection.sendWithNextRoundTrip(Statement(statement, schema: schema)) }
        if revokingDefaultGrants { try revokeDefaultGrants(inSchema: schema, on: connection) }
    }

    /// The archive is the migrator's alone: default privileges of the schema (the app role's DML
    /// from `tenant create --app-role`) would otherwise reach it, so whatever they granted is revoked
    /// (with the caller's next round trip).
    static func revokeDefaultGrants(inSchema schema: String, on connection: Connection) throws {
        let grantees = try connection.execute("""
            SELECT DISTINCT CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END
            FROM pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a
            WHERE c.oid = pg_catalog.to_regclass(\(qualifiedNameLiteral: tableName)) AND a.grantee <> c.relowner
            """, schema: schema).map { try $0.decode(String.self, at: 0) }
        for grantee in grantees { try connection.sendWithNextRoundTrip(Statement("REVOKE ALL ON \(table) FROM \(quotedByServer: grantee)", schema: schema)) }
    }

    /// What one pair's entries hold in one tenant.
    public struct Usage: Sendable, Codable, Hashable {
        public var stepFrom: String
        public var stepTo: String
        public var entries: Int
        /// Bytes of the archived values (text form).
        public var bytes: Int
        public var oldest: Date
        public var newest: Date
        /// Of ``entries``, those a way back did not give back (the app's change won): restored only
        /// on request (`archive restore --superseded`).
        public var superseded: Int = 0
    }

    /// The entries per pair of one tenant's archive, in pair order (empty without an archive).
    /// A pair whose way back gives back every value (``WayBackProof``) has only its marker entry,
    /// which is not counted: it shows with 0 entries.
    public static func usage(inSchema schema: String, on connection: Connection) throws -> [Usage] {
        guard connection.isInTransaction else { return try connection.transaction { try usage(inSchema: schema, on: $0) } }
        guard try lockOwn(inSchema: schema, mode: .accessShare, on: connection) else { return [] }
        let value: SQL = "column_name <> \(literal: WayBackProof.markerColumn)"
        // (Read through the row's JSON: an earlier release's archive, not yet upgraded, has no such column.)
        let superseded: SQL = "(pg_catalog.to_jsonb(a.*) ->> \(literal: supersededColumn)) = 'true'"
        let result = try connection.execute(
            "SELECT step_from, step_to, (pg_catalog.count(*) FILTER (WHERE \(value)))::bigint, "
                + "coalesce(pg_catalog.sum(pg_catalog.octet_length(value)) FILTER (WHERE \(value)), 0)::bigint, "
                + "pg_catalog.date_part('epoch', pg_catalog.min(archived_at))::float8, pg_catalog.date_part('epoch', pg_catalog.max(archived_at))::float8, "
                + "(pg_catalog.count(*) FILTER (WHERE \(value) AND \(superseded)))::bigint "
                + "FROM \(table) AS a GROUP BY step_from, step_to ORDER BY step_from, step_to", schema: schema)
        return try result.map { row in
            Usage(stepFrom: try row.decode(String.self, at: 0), stepTo: try row.decode(String.self, at: 1),
                  entries: Int(try row.decode(Int64.self, at: 2)), bytes: Int(try row.decode(Int64.self, at: 3)),
                  oldest: Date(timeIntervalSince1970: try row.decode(Double.self, at: 4)),
                  newest: Date(timeIntervalSince1970: try row.decode(Double.self, at: 5)),
                  superseded: Int(try row.decode(Int64.self, at: 6)))
        }
    }

    /// Deletes the entries archived before `cutoff`; returns how many.
    @discardableResult
    public static func prune(inSchema schema: String, olderThan cutoff: Date, on connection: Connection) throws -> Int {
        guard connection.isInTransaction else { return try connection.transaction { try prune(inSchema: schema, olderThan: cutoff, on: $0) } }
        guard try lockOwn(inSchema: schema, mode: .rowExclusive, on: connection) else { return 0 }
        return try connection.execute(
            "DELETE FROM \(table) WHERE archived_at < pg_catalog.to_timestamp($1)", schema: schema, [cutoff.timeIntervalSince1970]
        ).affectedRows
    }
}
