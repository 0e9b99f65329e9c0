import EntityModel
import TypedSQL

extension CatchUpRound {
    /// The rows the archived links of the round's needed rows name: for each entry that keeps a
    /// foreign key's value (a to-one a step gives back from the archive: `e1.r21_id`, a to-one of
    /// some version of the steps), the row of the table it refers to, as a needed row of that
    /// table's source table. A step that gives a link back checks that the row it names is there
    /// (``StepArchive``'s reference guards): in the delta as live, so that an app's change to the
    /// holding row during the run does not leave the link out (superseded), where an offline run
    /// gives it back. Rows only referenced are not merged (only changed ones are).
    ///
    /// - Parameter archive: the copy of the live archive the shadow was made with.
    func archivedLinkTargets(in archive: SQL) -> [SQL] {
        // (Archived table, column) → the source table whose rows the column's values name.
        var links: [String: [String: String]] = [:]
        for step in plan.caughtUp {
            for version in step.versions {
                for table in version.relationalSchema().tables {
                    for key in table.foreignKeys where key.columns.count == 1 {
                        // (Rows keyed by an integer id: an archived link is that id's text.)
                        guard let target = sourceTable(named: key.referencedTable), let targetTable = source.table(named: target),
                              ArchiveRowKey(targetTable) == nil, targetTable.primaryKey.columns == ["id"] else { continue }
                        links[table.name, default: [:]][key.columns[0]] = target
                    }
                }
            }
        }
        return source.tables.filter { ArchiveRowKey($0) == nil }.flatMap { holder -> [SQL] in
            (plan.lineage.names[holder.name] ?? [holder.name]).sorted().flatMap { name -> [SQL] in
                (links[name] ?? [:]).sorted { $0.key < $1.key }.map { column, target -> SQL in
                    "INSERT INTO \(needed) (relation, key) SELECT \(literal: target), ARRAY[a.value]::pg_catalog.text[] FROM \(archive) AS a "
                        + "WHERE a.table_name = \(literal: name) AND a.column_name = \(literal: column) AND NOT a.superseded "
                        + "AND a.value OPERATOR(pg_catalog.~) '^-?[0-9]{1,18}$' "
                        + "AND a.row_id IN (\(keysOf(holder, in: needed, as: [.bigint]))) ON CONFLICT DO NOTHING"
                }
            }
        }
    }

    /// The source table whose rows have `name` along the steps (itself, or a later name of it).
    func sourceTable(named name: String) -> String? {
        if source.table(named: name) != nil { return name }
        return plan.lineage.names.first { $0.value.contains(name) }?.key
    }
}
