import EntityModel
import LibPQ
import TypedSQL

/// Archive entries written before entries were keyed by adjacent pair: a fused inferred step
/// (v1 → v3) keyed everything it archived by its ends, with the names of its first version, and
/// whole rows as the rows were at the time (after the step's renames).
///
/// The first step that restores anything in such a tenant rekeys them, in its transaction: the
/// fused step is worked out again from the family, and each of its values goes to the pair of the
/// run that takes it, named as that pair's source names it (a whole row's keys too; a column that
/// an earlier pair of the run dropped is taken out of the rows into entries of its own). From then
/// on they are ordinary pair entries: `v3 → v1` in one call, or `v3 → v2 → v1` in two, gives them
/// back. Entries of a run that can no longer be inferred and fused stay as they are.
struct LegacyEntries {
    let family: ModelFamily
    let schema: String
    let connection: Connection

    /// Whether a key spans more than one adjacent pair of the family.
    static func isLegacy(_ key: ArchivePlan.PairKey, family: ModelFamily) -> Bool {
        guard let from = family.index(ofVersion: key.from), let to = family.index(ofVersion: key.to) else { return false }
        return abs(from - to) > 1
    }

    static func hasLegacyKeys(_ keys: some Sequence<ArchivePlan.PairKey>, family: ModelFamily) -> Bool {
        keys.contains { isLegacy($0, family: family) }
    }

    private var archive: SQL { TenantArchive.table }

    /// Rekeys every legacy key among `keys` that can be.
    func rekey(_ keys: some Sequence<ArchivePlan.PairKey>) throws {
        for key in keys where Self.isLegacy(key, family: family) {
            guard let plan = fusedPlan(from: key.from, to: key.to) else { continue }
            try rekey(key, plan)
        }
    }

    /// The archive plan the fused step would have now, nil if the run is no longer inferred and fused.
    private func fusedPlan(from source: String, to destination: String) -> ArchivePlan? {
        guard let path = try? family.path(from: source, to: destination),
              let single = try? path.pairs.map({ try InferredChanges.infer($0) }),
              let fused = try? InferredChanges.fuse(path), fused.isEquivalentFusion(of: single) else { return nil }
        return ArchivePlan(fused: fused.account, versions: path.versions, direction: path.direction,
                           pairAccounts: single.map(\.account), restores: [], family: nil)
    }

    private func rekey(_ legacy: ArchivePlan.PairKey, _ plan: ArchivePlan) throws {
        let old: SQL = "step_from = \(literal: legacy.from) AND step_to = \(literal: legacy.to)"
        func pair(_ item: ArchivePlan.Item) -> SQL {
            let pair = plan.pairs[item.pair]
            return "step_from = \(literal: pair.from), step_to = \(literal: pair.to), table_name = \(literal: item.recordedTable)"
        }
        // Columns of a dropped table that an earlier pair dropped: out of the rows first.
        for item in plan.items where item.column != nil && plan.names.survivingTables[item.table] == nil {
            let target = plan.pairs[item.pair]
            try connection.execute(
                "INSERT INTO \(archive) (step_from, step_to, table_name, column_name, row_id, value, archived_at) "
                    + "SELECT $1, $2, $3, $4, row_id, value::jsonb ->> $5, archived_at FROM \(archive) WHERE \(old) AND table_name = $6 AND column_name = ''", schema: schema,
                [target.from, target.to, item.recordedTable, item.recordedColumn ?? "", plan.names.liveColumn(item.column!, of: item.table), item.table])
        }
        for item in plan.items {
            if let column = item.column {
                guard plan.names.survivingTables[item.table] != nil else { continue }
                try connection.execute("UPDATE \(archive) SET \(pair(item)), column_name = $1 WHERE \(old) AND table_name = $2 AND column_name = $3",
                                       schema: schema, [item.recordedColumn ?? column, item.table, column])
                continue
            }
            // Whole rows: their keys as the pair's source names them.
            let table = plan.sourceSchema.table(named: item.table)
            let renames = item.rowKeys.map { key -> SQL in
                "(\(literal: plan.names.liveColumn(key.column, of: item.table)), \(literal: key.key), "
                    + "\(raw: String(table?.column(named: key.column)?.type == .jsonb)))"
            }
            var conditions: [SQL] = [old, "table_name = \(literal: item.table)", "column_name = ''"]
            if let entities = item.entities {
                conditions.append("value::jsonb ->> 'entity' IN (\(literals: entities))")
            }
            try connection.execute(
                // (A jsonb value becomes its text, as pair entries keep it.)
                "UPDATE \(archive) SET \(pair(item)), value = (SELECT pg_catalog.jsonb_object_agg(m.k, CASE WHEN m.json AND pg_catalog.jsonb_typeof(j.value) <> 'null' "
                    + "THEN pg_catalog.to_jsonb(j.value::text) ELSE j.value END) FROM pg_catalog.jsonb_each(value::jsonb) AS j "
                    + "JOIN (VALUES \(renames, joinedBy: ", ")) AS m(o, k, json) ON m.o = j.key)::text WHERE \(conditions, joinedBy: " AND ")", schema: schema)
        }
    }
}
