import LibPQ
import TypedSQL

/// Autovacuum on the shadow's tables. Drawn by the rows a run has just copied, it would hold them
/// while the run builds on them and cuts over: it yields to a waiting lock only after
/// `deadlock_timeout`, so the run's locks wait, and may time out (in `tenant-migrate-bench online`
/// at 1,000,000 rows the cutover lost 4 lock races to it). The run analyzes the shadow's tables
/// itself, so they are made with autovacuum off (in the transaction that creates them, where
/// nothing else can hold them), and the cutover turns it back on (``autovacuumReset(schema:table:)``)
/// when it moves them into the tenant's schema. A shadow that is dropped (a failed or abandoned
/// run) takes the setting with it: no table of a tenant is left without autovacuum.
extension ShadowTables {
    /// `ALTER TABLE` turning autovacuum off on `table` of `schema` and on its TOAST table.
    public static func autovacuumOff(schema: String, table: String) -> SQL {
        "ALTER TABLE \(schema: schema, table: table) SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)"
    }

    /// `ALTER TABLE` giving `table` of `schema` (and its TOAST table) the server's autovacuum settings again.
    public static func autovacuumReset(schema: String, table: String) -> SQL {
        "ALTER TABLE \(schema: schema, table: table) RESET (autovacuum_enabled, toast.autovacuum_enabled)"
    }

    /// `ALTER TABLE` turning autovacuum off on `tables` of the shadow.
    public func autovacuumOff(_ tables: [String]) -> [SQL] {
        tables.map { Self.autovacuumOff(schema: schema, table: $0) }
    }

    /// Turns autovacuum off on every table of the shadow's schema but `kept`: after steps that made
    /// tables (the archive, a run's records of keys), in their transaction, where nothing else
    /// holds those tables (autovacuum never took the others, off since their creation). Under a
    /// naming of its own (the shadow inside the tenant's schema), only the tables that carry it:
    /// the live tables beside them keep their settings.
    public func turnAutovacuumOffOnEveryTable(but kept: Set<String>, on connection: Connection) throws {
        let tables = try connection.execute("""
            SELECT c.relname::pg_catalog.text FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
            WHERE n.nspname = \(bind: schema) AND c.relkind IN ('r', 'p') ORDER BY c.relname
            """).map { try $0.decode(String.self, at: 0) }.filter { !kept.contains($0) && $0.hasPrefix(naming.prefix) }
        if !tables.isEmpty { try connection.pipeline(autovacuumOff(tables), schema: schema) }
    }
}
