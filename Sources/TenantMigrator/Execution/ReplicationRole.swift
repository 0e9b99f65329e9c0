import LibPQ
import MigrationEngine
import TypedSQL

/// A tenant refused because the migrator's session runs with `session_replication_role` other than
/// `origin` (an `ALTER ROLE … SET` or `ALTER DATABASE … SET` some replication setups leave behind,
/// or the connection's `options`). Under `replica` or `local`, PostgreSQL checks no foreign key and
/// runs none of their `ON DELETE` actions, and fires the app's `ENABLE REPLICA` triggers instead of
/// its ordinary ones: a migration would write rows no constraint vouches for. Found by the tenant's
/// facts (``TenantSchemaFacts``), before anything is written.
struct ReplicationRole: Error, CustomStringConvertible {
    let tenant: TenantName
    /// The session's `session_replication_role`.
    let role: String

    /// The session's `session_replication_role` when it is not `origin`, read on `connection` (an
    /// online run's, which does not read the tenant's facts).
    static func of(_ connection: Connection) throws -> String? {
        try connection.execute("SELECT pg_catalog.current_setting('session_replication_role') "
            + "WHERE pg_catalog.current_setting('session_replication_role') <> 'origin'" as SQL).first?.decode(String.self, at: 0)
    }

    /// `55000`, object not in prerequisite state.
    var sqlState: SQLState { "55000" }

    var description: String {
        "tenant \(tenant): the migrator's session runs with session_replication_role = \(role), under which PostgreSQL checks no foreign key "
            + "and runs none of their ON DELETE actions, so the migration would write links no constraint vouches for; the migrator refuses "
            + "the tenant (SQLSTATE \(sqlState)); nothing was changed. Reset it for the migrator's role and database "
            + "(ALTER ROLE … RESET session_replication_role, ALTER DATABASE … RESET session_replication_role), or remove it from the "
            + "connection string's options"
    }
}
