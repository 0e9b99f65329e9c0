import EntityModel
import LibPQ
import MigrationEngine
import TypedSQL

/// What the runner reads about a tenant's data to choose how it migrates online.
enum TenantSize {
    /// The tenant's rows, summed over the tables of `version`: `pg_class.reltuples` (the estimate
    /// ANALYZE and autovacuum keep), or, for a table never analyzed, a count that stops past `bound`.
    static func estimatedRows(of version: ModelVersion, inSchema schema: String, upTo bound: Int, on connection: Connection) throws -> Int {
        let tables = Set(version.relationalSchema().tables.map(\.name))
        let rows = try connection.execute("""
            SELECT c.relname::pg_catalog.text, c.reltuples::pg_catalog.float8 FROM pg_catalog.pg_class c
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = \(bind: schema) AND c.relkind IN ('r', 'p')
            """)
        var total = 0
        for row in rows {
            let table = try row.decode(String.self, at: 0)
            guard tables.contains(table) else { continue }
            let estimate = try row.decode(Double.self, at: 1)
            if estimate >= 0 {
                total += Int(estimate)
            } else {
                let counted = try connection.execute(
                    "SELECT pg_catalog.count(*)::pg_catalog.int8 FROM (SELECT 1 FROM \(schema: schema, table: table) LIMIT \(bind: bound + 1)) AS rows"
                ).first?.decode(Int64.self, at: 0) ?? 0
                total += Int(counted)
            }
        }
        return total
    }

    /// Whether the tenant's archive holds values a step of `plan` would put back: entries of the
    /// reverse of an adjacent pair it crosses (its restore moves data, so the step is not
    /// catalog-only for this tenant).
    static func hasArchivedValuesToRestore(_ plan: MigrationPlan, inSchema schema: String, on connection: Connection) throws -> Bool {
        guard try TenantArchive.exists(inSchema: schema, on: connection) else { return false }
        for pair in plan.steps.flatMap(\.pairs) {
            let found = try connection.execute(
                "SELECT EXISTS (SELECT 1 FROM \(schema: schema, table: TenantArchive.tableName) WHERE step_from = \(bind: pair.destination.name) "
                    + "AND step_to = \(bind: pair.source.name))"
            ).first?.decode(Bool.self, at: 0) ?? false
            if found { return true }
        }
        return false
    }
}
