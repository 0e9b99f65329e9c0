import LibPQ
import MigrationEngine
import TypedSQL

extension OnlinePreconditions {
    /// Why the tenant cannot migrate online for rows a `distinct:` mapping makes again, or nil.
    ///
    /// Where an earlier way down archived the whole rows a distinct mapping made (its keys and
    /// their ids: `e22 {"id": 5, "a23": "…"}`), the step run again gives each key back the id it
    /// had (``StepArchive``'s `restoreRowsKeepingIds`), so that every link to it names the same
    /// row. Catch-up numbers the keys the app adds or moves during the run by their first rows
    /// instead, not by the archive: a key could be lost with the links of rows the app never
    /// touched. Until catch-up keeps those ids too, such a tenant is refused online, before
    /// anything is touched; offline keeps them.
    func distinctRerunRefusal(on connection: Connection) throws -> String? {
        let online = OnlinePlan(plan)
        guard let step = online.caughtUp.last, !online.distinct.isEmpty, try TenantArchive.exists(inSchema: schemas.tenant, on: connection) else { return nil }
        for distinct in online.distinct {
            for pair in step.pairs {
                let archived = try connection.execute(
                    "SELECT EXISTS (SELECT FROM \(schema: schemas.tenant, table: TenantArchive.tableName) AS a WHERE a.step_from = \(bind: pair.destination.name) "
                        + "AND a.step_to = \(bind: pair.source.name) AND a.table_name = \(bind: distinct.destinationTable) AND a.column_name = '' AND NOT a.superseded)"
                ).first?.decode(Bool.self, at: 0) ?? false
                if archived {
                    return "the distinct mapping of step \(step.source.name) → \(step.destination.name) makes the rows of \(distinct.destinationTable) again, "
                        + "and the archive keeps their ids from the way down \(pair.destination.name) → \(pair.source.name); an online run cannot yet keep those ids "
                        + "while the app writes. Migrate it offline"
                }
            }
        }
        return nil
    }
}
