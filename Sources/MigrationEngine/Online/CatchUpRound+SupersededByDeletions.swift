import EntityModel
import TypedSQL

/// The archive entries the build gave back whose row the app then deleted: kept superseded, as
/// offline.
///
/// A caught-up step that gives back archived links (a dropped join table's pairs, a to-one's
/// `r21_id`) or whole rows checks that each row they refer to is there (``StepArchive``'s
/// reference guards): it gives the entry back and removes it, or keeps it, superseded. The build
/// ran the step over the rows as copied; when the app deletes a row they refer to while the run
/// catches up, the shadow's foreign keys take the given-back links away with it (or clear them),
/// but the entries are gone, where an offline run, which meets the deletion first, keeps them
/// superseded (docs/Archive.md, "Superseded values"). A round's merge puts them back so: each
/// entry of the live archive's copy that a caught-up step gives back, that names a row of the
/// round's change set the live table no longer has, and that the shadow's archive lacks (the
/// build or an earlier round used it; an entry the delta kept is merged already), is copied into
/// the shadow's archive, superseded. One statement per archived table and link, each doing
/// nothing where no changed row of the table it refers to was deleted (a one-time test), so that
/// a round of updates and inserts, the cutover's last one too, reads none of the archive.
extension CatchUpRound {
    /// The statements, for the shadow's archive whose columns are `columns`.
    func supersededByDeletions(columns: [String]) -> [SQL] {
        let copy = shadowTable(ShadowTables.liveArchive), archive = shadowTable(TenantArchive.tableName)
        let selected: [SQL] = columns.map { $0 == "superseded" ? "true" : "a.\(id: $0)" }
        var seen: Set<[String]> = []
        var statements: [SQL] = []
        for step in plan.caughtUp {
            for restore in step.archivePlan.restores {
                for table in restore.entrySchema.tables {
                    for key in table.foreignKeys where key.columns.count == 1 {
                        guard let targetTable = sourceTableKeyedByID(named: key.referencedTable), let type = targetTable.column(named: "id")?.type else { continue }
                        let target = targetTable.name
                        let column = key.columns[0]
                        // A whole row names the row in its JSON; a link entry is the id's text.
                        for whole in [true, false] {
                            guard seen.insert([restore.key.from, restore.key.to, table.name, column, "\(whole)"]).inserted else { continue }
                            let named: SQL = whole ? "CASE WHEN a.column_name = '' THEN a.value::pg_catalog.jsonb ->> \(literal: column) END" : "a.value"
                            let deleted: SQL = "NOT EXISTS (SELECT FROM \(schema: live, table: target) AS r WHERE r.id = \(CapturedKey.element(0, as: type, of: target)))"
                            // A whole row given back in a table the run ends with (a removed
                            // sub-entity's, in its root's table) that its foreign key kept (SET
                            // NULL) goes, as offline never gave it back; so do the values it held.
                            // (Rows of a table keyed otherwise, a join table's pairs, went with
                            // the row their key refers to.)
                            let end = whole ? restore.toEnd.table(table.name).flatMap { destination.table(named: $0) }
                                .flatMap { ArchiveRowKey($0) == nil && $0.primaryKey.columns == ["id"] ? $0 : nil } : nil
                            let kept: SQL = end.map { _ in "WITH kept AS (" } ?? ""
                            statements.append("\(kept)INSERT INTO \(archive) (\(ids: columns)) SELECT \(selected, joinedBy: ", ") FROM \(copy) AS a "
                                + "JOIN \(changed) AS c ON c.relation = \(literal: target) AND c.key[1] = \(named) "
                                + "WHERE EXISTS (SELECT FROM \(changed) AS c WHERE c.relation = \(literal: target) AND \(deleted)) "
                                + "AND a.step_from = \(literal: restore.key.from) AND a.step_to = \(literal: restore.key.to) "
                                + "AND a.table_name = \(literal: table.name) AND a.column_name = \(literal: whole ? "" : column) AND NOT a.superseded AND \(deleted) "
                                + "AND NOT EXISTS (SELECT FROM \(archive) AS s WHERE s.table_name = a.table_name AND s.row_id = a.row_id "
                                + "AND s.step_from = a.step_from AND s.step_to = a.step_to AND s.column_name = a.column_name "
                                + "\(columns.contains("row_key") ? "AND s.row_key IS NOT DISTINCT FROM a.row_key" : "" as SQL))"
                                + (end.map { endTable in
                                    let made: SQL = plan.lineage.origins[endTable.name].map { origin in
                                        "AND NOT EXISTS (SELECT FROM \(schema: live, table: origin.sourceTable) AS r WHERE r.id = t.id) "
                                    } ?? ""
                                    return " RETURNING row_id), gone AS (DELETE FROM \(shadowTable(endTable.name)) AS t WHERE t.id IN (SELECT k.row_id FROM kept AS k) "
                                        + "\(made)RETURNING t.id) "
                                        + "INSERT INTO \(archive) (\(ids: columns)) SELECT \(selected, joinedBy: ", ") FROM \(copy) AS a "
                                        + "WHERE a.step_from = \(literal: restore.key.from) AND a.step_to = \(literal: restore.key.to) "
                                        + "AND a.table_name = \(literal: table.name) AND a.column_name <> '' AND NOT a.superseded "
                                        + "AND a.row_id IN (SELECT g.id FROM gone AS g) "
                                        + "AND NOT EXISTS (SELECT FROM \(archive) AS s WHERE s.table_name = a.table_name AND s.row_id = a.row_id "
                                        + "AND s.step_from = a.step_from AND s.step_to = a.step_to AND s.column_name = a.column_name)"
                                } ?? ""))
                        }
                    }
                }
            }
        }
        return statements
    }
}
