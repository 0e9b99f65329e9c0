import EntityModel
import LibPQ

/// Only what an overwrite changes stays in the archive, where the way back carries the rest back.
///
/// An expression that writes a column in place (`priority: "coalesce(source.priority, 0)"`),
/// possibly followed by the backfill of a new default, is archived before it runs, in every row it
/// writes: the archive cannot know before which values it will change. Once the step ran, the
/// archive notes what the step left in each row (`left_value`); where that is the value the row
/// had (the same text of the same type), the step destroyed nothing there. When the pair's way
/// back carries the column back as it is (the same column, every row, no expression, no policy, no
/// hook), such a row comes back with that very value without the archive, so its entry is dropped:
/// the archive keeps the values the step changed (the NULLs that became 0), NULLs included.
extension ArchivePlan {
    /// The keys (``Item/key``) of the columns whose unchanged values need not stay: columns the
    /// account says only expressions, policies or backfills overwrite in place, that survive with
    /// the same type, and that `wayBack` (the pair's account crossed the other way; nil: unknown,
    /// or a hook runs there) carries back to themselves in every row.
    static func changedOnly(account: StepAccount, names: ArchiveNames, sourceSchema: RelationalSchema, destinationSchema: RelationalSchema,
                            wayBack: StepAccount?) -> Set<String> {
        guard let wayBack else { return [] }
        var keys: Set<String> = []
        for entry in account.entries where entry.overwritesInPlace == true && entry.item.kind == .column {
            guard let column = entry.item.column, let survivingTable = names.survivingTables[entry.item.table],
                  let surviving = names.survivingColumns[entry.item.table + "." + column],
                  let type = sourceSchema.table(named: entry.item.table)?.column(named: column)?.type,
                  destinationSchema.table(named: survivingTable)?.column(named: surviving)?.type == type else { continue }
            // Every entry of the column is an in-place overwrite: nothing else archives it.
            let own = account.entries(table: entry.item.table, column: column)
            guard own.allSatisfy({ $0.overwritesInPlace == true }) else { continue }
            let back = wayBack.entries(table: survivingTable, column: surviving)
            guard back.count == 1, let only = back.first, only.item.rows == nil, only.overwritesInPlace != true,
                  case let .carried(location) = only.fate, location == .init(table: entry.item.table, column: column) else { continue }
            keys.insert(entry.item.table + "." + column)
        }
        return keys
    }
}

extension StepArchive {
    /// Once the step noted what it left (``afterStep()``): drops the entries of a
    /// ``ArchivePlan/Item/changedOnly`` item whose row holds the value it had (queued).
    func dropUnchanged(_ item: ArchivePlan.Item) throws {
        guard item.changedOnly else { return }
        let pair = plan.pairs[item.pair]
        try connection.sendWithNextRoundTrip(Statement(
            "DELETE FROM \(archiveTable) AS a WHERE a.step_from = $1 AND a.step_to = $2 AND a.table_name = $3 AND a.column_name = $4 "
                + "AND a.compares AND NOT a.superseded AND a.value IS NOT DISTINCT FROM a.left_value",
            schema: schema, [pair.from, pair.to, item.recordedTable, item.recordedColumn ?? ""]))
    }
}
