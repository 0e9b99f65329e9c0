import Foundation
import LibPQ
import TypedSQL

/// The tables an online cutover replaced, kept in the tenant's retired schema
/// (``OnlineSchemas/retired``, the migrator's alone) with a note of when and why, until the next
/// online migration of the tenant, `archive prune --older-than`, or the tenant's drop. Nothing
/// reads them back: they are there for an operator who needs the old version's rows as they were
/// at the cutover. (A rollback goes through the archive, like any migration down.)
enum RetiredTables {
    static let noteTable = "_tm_retired"

    /// Creates the retired schema with its note.
    static func create(_ schema: String, version: String, replacedBy destination: String, on connection: Connection) throws {
        try OnlineSchemas.createPrivate(schema, on: connection)
        let note: SQL = "\(schema: schema, table: noteTable)"
        try connection.execute("CREATE TABLE \(note) (version text NOT NULL, replaced_by text NOT NULL, "
            + "retired_at timestamptz NOT NULL DEFAULT pg_catalog.clock_timestamp())" as SQL)
        try connection.execute("INSERT INTO \(note) (version, replaced_by) VALUES (\(bind: version), \(bind: destination))")
    }

    /// Takes every right on the retired tables (on a table or on one of its columns) and their
    /// sequences from every role but their owner (the migrator), in the cutover's transaction. A
    /// view the app bound to a live table before the cutover (a temporary one, say) follows the
    /// table into the retired schema, so without this the app would keep reading and writing the
    /// rows kept as the old version, the values of the columns the steps dropped included. With
    /// `CASCADE`: a right the app granted on to another role (`WITH GRANT OPTION`) depends on the
    /// app's, whichever is revoked first (2BP01 otherwise).
    static func revokeGrants(in schema: String, on connection: Connection) throws {
        let revokes = try connection.execute("""
            SELECT pg_catalog.format('REVOKE ALL ON %s %s FROM %s CASCADE', CASE c.relkind WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, c.oid::pg_catalog.regclass,
                                     CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END)
            FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace, \(TableGrants.othersRights)
            WHERE n.nspname = \(bind: schema) AND a.grantee <> c.relowner GROUP BY c.oid, c.relkind, a.grantee
            """).map { Statement("\(quotedByServer: try $0.decode(String.self, at: 0))") }
        if !revokes.isEmpty { try connection.pipeline(revokes) }
    }

    /// Drops the retired tables of the tenant in schema `tenant` if they were retired before `cutoff`.
    ///
    /// - Returns: the version they were at, when they were dropped.
    static func prune(forTenantSchema tenant: String, olderThan cutoff: Date, on connection: Connection) throws -> String? {
        guard try OnlineSchemas.exists(tenant, on: connection) else { return nil }
        let schema = try OnlineSchemas.of(tenant, on: connection).retired
        guard try OnlineSchemas.existsAsOwn(schema, on: connection) else { return nil }
        let note = QualifiedTable(schema: schema, name: noteTable)
        guard try connection.execute("SELECT pg_catalog.to_regclass(\(bind: note.text)) IS NOT NULL").first?.decode(Bool.self, at: 0) ?? false,
              let version = try connection.execute(
                  "SELECT version FROM \(note.sql) WHERE retired_at < pg_catalog.to_timestamp($1)" as SQL, [cutoff.timeIntervalSince1970]
              ).first?.decode(String.self, at: 0) else { return nil }
        try OnlineSchemas.dropRetired(schema, on: connection)
        return version
    }
}
