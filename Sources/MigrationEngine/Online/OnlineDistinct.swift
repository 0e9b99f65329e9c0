import EntityModel
import LibPQ
import TypedSQL

/// A distinct mapping (`distinct:`) of the last caught-up step, as catch-up follows it: its rows
/// are one per key, not one per source row, so they are found by key.
///
/// Its destination row for a key K comes from K's first source row (by id) and has, in a full run,
/// an id of its rank among the first rows. A catch-up round cannot reproduce ranks from a few rows,
/// so the shadow keeps, from the build on, which key each source row has (``rowsTable``) and which
/// first row and destination id each key has (``keysTable``). A round then:
/// - finds the keys its changed source rows had and have (the *affected* keys) and each one's
///   first row now; puts that row in the delta, so the delta's row for the key is the full run's;
///   and where a key's first row changed, or is itself changed, migrates the key's every row again
///   (what each keeps or merges is decided against the first row);
/// - matches the delta's rows to the shadow's by key: an existing key keeps its id, a new key gets
///   the next id past the shadow's, a key no row has any more loses its row; every foreign key to
///   the table, in the rows merged, is translated from the delta's ids to the shadow's;
/// - renumbers the keys whose id is no longer their rank, with every link to them
///   (``CatchUpRound/renumberDistinctRows()``), so the ids are those of an offline migration.
public struct OnlineDistinct: Sendable {
    /// Its position among the plan's distinct mappings, for table names.
    let index: Int
    let rows: DistinctRows
    /// The source table (as named live and in the step).
    public let sourceTable: String
    /// The destination table it fills (the plan's last caught-up version's name).
    public let destinationTable: String

    /// The shadow's source rows and their keys.
    var rowsTable: String { "_tm_online_rows_\(index)" }
    /// The shadow's keys, their first rows and destination ids.
    var keysTable: String { "_tm_online_keys_\(index)" }
    /// The tables the shadow keeps for it (``rowsTable``, ``keysTable``): the run's bookkeeping,
    /// never swapped in.
    public var bookkeepingTables: [String] { [rowsTable, keysTable] }
    /// A round's affected keys and their first rows, before and now (temporary).
    var affectedTable: String { "_tm_online_affected_\(index)" }
    /// A round's changed source rows and their keys now (temporary).
    var liveKeysTable: String { "_tm_online_now_\(index)" }
    /// A round's delta rows: delta id, key, shadow id (temporary).
    var idsTable: String { "_tm_online_ids_\(index)" }

    /// `SELECT source.id AS source_id, (K) AS key FROM … WHERE …` over the source rows (of the
    /// schema it is rendered for), those with an id among `ids` when given.
    func sourceKeys(ids: SQL? = nil) -> SQL {
        let conditions = rows.conditions + ["(\(rows.key)) IS NOT NULL"] + (ids.map { ["source.id IN (\($0))"] } ?? [])
        return "SELECT source.id AS source_id, (\(rows.key)) AS key FROM \(rows.from) WHERE \(conditions, joinedBy: " AND ")"
    }

    /// The keys of the source rows (the shadow's before its build, or a delta's before its run):
    /// each key with its first row and the id a full run gives its row (its rank; the destination
    /// table is new, so the offset is 0).
    var keysQuery: SQL { keys(of: sourceKeys()) }

    /// ``keysQuery`` over `sourceRows`, rows of `source_id` and `key` as ``sourceKeys(ids:)`` makes them.
    private func keys(of sourceRows: SQL) -> SQL {
        "SELECT tm_k.key, tm_k.first, pg_catalog.row_number() OVER (ORDER BY tm_k.first) AS id "
            + "FROM (SELECT s.key, pg_catalog.min(s.source_id) AS first FROM (\(sourceRows)) AS s GROUP BY s.key) AS tm_k"
    }

    /// What ``rowsTable`` is indexed by for finding a key's rows: the key, or for text keys its
    /// `hashtext` (an integer index builds in about 0.5 s at 1,000,000 rows, the text's in 1.2 s).
    func rowsKeyIndexed(_ key: SQL) -> SQL {
        rows.keyIsText ? "(pg_catalog.hashtext(\(key)))" : key
    }

    /// The condition that row `r` of ``rowsTable`` has the key `key`, in a form its index serves.
    func rowsHaveKey(_ r: SQL, _ key: SQL) -> SQL {
        rows.keyIsText ? "pg_catalog.hashtext(\(r).key) = pg_catalog.hashtext(\(key)) AND \(r).key = \(key)" : "\(r).key = \(key)"
    }

    /// Before the build, in the shadow: the source rows' keys and the keys' rows, indexed. The
    /// tables, read and made, are named as the caller's ``TableNaming/rendering(_:in:_:)`` names
    /// those of `shadow` (a shadow inside the tenant's schema, on Citus).
    ///
    /// Both tables are the run's bookkeeping, dropped with its private schema, and UNLOGGED: a
    /// crash ends the run, whose next run starts over and records them again, so they need no
    /// WAL (at 1,000,000 rows, a second copy of the key column and two indexes).
    public func recordKeys(shadow: String, on connection: Connection) throws {
        try connection.pipeline([
            "CREATE UNLOGGED TABLE \(table: rowsTable) AS \(sourceKeys())",
            "CREATE UNIQUE INDEX ON \(table: rowsTable) (source_id)",
            "CREATE INDEX ON \(table: rowsTable) (\(rowsKeyIndexed("key")))",
            // From the rows just recorded: the key is computed once per row, not twice.
            "CREATE UNLOGGED TABLE \(table: keysTable) AS \(keys(of: "SELECT r.source_id, r.key FROM \(table: rowsTable) AS r"))",
            "CREATE UNIQUE INDEX ON \(table: keysTable) (key)",
            "ANALYZE \(table: rowsTable)",
            "ANALYZE \(table: keysTable)",
        ], schema: shadow)
    }
}

extension OnlinePlan {
    /// The distinct mappings of the last caught-up step, each with why it can be caught up, or the
    /// reason it cannot (then that step and those after it run while writes wait).
    static func distinctMappings(of steps: [MigrationStep], source: ModelVersion) -> (mappings: [OnlineDistinct], refusal: String?) {
        guard let last = steps.last, let model = last.mappingModel, let compiler = last.program.mapped?.compiler else { return ([], nil) }
        var found: [OnlineDistinct] = []
        for compiled in last.program.mappings {
            guard case let .perKey(rows) = compiled.ids else { continue }
            let mapping = compiled.mapping
            if let reason = last.distinctRefusal(mapping, rows: rows, in: model, compiler: compiler) { return ([], reason) }
            if let reason = unchangedBefore(rows, by: steps.dropLast(), mapping: mapping.name) { return ([], reason) }
            guard let destination = compiler.destinationTable(of: mapping.destination)?.name else { continue }
            found.append(OnlineDistinct(index: found.count, rows: rows, sourceTable: rows.sourceTable, destinationTable: destination))
        }
        for shared in last.policyRowsMadePerKey {
            guard let rows = shared.rows else {
                return ([], "policy \(shared.policy) keys its \(shared.mapping.destination) rows by \(shared.attribute), which \(shared.mapping.source) does not have")
            }
            if let reason = last.distinctRefusal(shared.mapping, rows: rows, in: model, compiler: compiler) { return ([], reason) }
            if let reason = unchangedBefore(rows, by: steps.dropLast(), mapping: shared.mapping.name) { return ([], reason) }
            guard let destination = compiler.destinationTable(of: shared.mapping.destination)?.name else { continue }
            found.append(OnlineDistinct(index: found.count, rows: rows, sourceTable: rows.sourceTable, destinationTable: destination))
        }
        return (found, nil)
    }

    /// Why the rows a distinct mapping reads are not the live ones (an earlier step changes its
    /// source table's names); nil when they are.
    private static func unchangedBefore(_ rows: DistinctRows, by earlierSteps: ArraySlice<MigrationStep>, mapping: String) -> String? {
        for earlier in earlierSteps {
            let names = earlier.account.names ?? ArchiveNames()
            let unchanged = names.survivingTables[rows.sourceTable] == rows.sourceTable
                && names.survivingColumns.allSatisfy { !$0.key.hasPrefix(rows.sourceTable + ".") || $0.key == rows.sourceTable + "." + $0.value }
            if !unchanged {
                return "distinct mapping \(mapping) reads \(rows.sourceTable), which step \(earlier.source.name) → \(earlier.destination.name) changes first"
            }
        }
        return nil
    }
}

extension MigrationStep {
    /// Why catch-up cannot follow a distinct mapping of this step, nil when it can: keys in id
    /// order, into a table the step creates and only it fills, from a source table the step
    /// neither renames nor changes before the mapping reads it.
    func distinctRefusal(_ mapping: EntityMapping, rows: DistinctRows, in model: MappingModel, compiler: MappingCompiler) -> String? {
        if mapping.distinct?.orderBy != nil {
            return "distinct mapping \(mapping.name) takes each key's first row by orderBy:, so which row is first depends on every row of the key"
        }
        guard let destination = compiler.destinationTable(of: mapping.destination)?.name,
              !compiler.differ.tableMatch.values.contains(destination) else {
            return "distinct mapping \(mapping.name) fills a table that has rows already, so its ids depend on them"
        }
        let fillers = model.entityMappings.filter { !compiler.isInPlace($0) && compiler.destinationTable(of: $0.destination)?.name == destination }
        if fillers.count > 1 { return "table \(destination) is filled by \(fillers.count) mappings" }
        let renamed = compiler.differ.tableMatch[rows.sourceTable].map { $0 != rows.sourceTable } ?? false
            || (compiler.differ.columnMatch[rows.sourceTable] ?? [:]).contains { $0.key != $0.value }
        if renamed { return "distinct mapping \(mapping.name) reads \(rows.sourceTable), which the step renames or whose columns it renames" }
        if program.dataMoves.contains(where: { $0.operation.dataTarget?.hasPrefix(rows.sourceTable + ".") == true }) {
            return "distinct mapping \(mapping.name) reads \(rows.sourceTable), whose values the step changes before its mappings run"
        }
        for earlier in model.entityMappings.prefix(while: { $0.name != mapping.name })
        where compiler.isInPlace(earlier) && compiler.sourceTable(of: earlier.source) == rows.sourceTable && !earlier.attributes.isEmpty {
            return "mapping \(earlier.name) rewrites \(rows.sourceTable) before distinct mapping \(mapping.name) reads it"
        }
        return nil
    }

    /// The account's predicates of this step's distinct mappings, as the accountant writes them:
    /// a row's value differs from its key's first row's (followed by catch-up, which puts each
    /// affected key's first row in the delta).
    var distinctPredicates: [String] {
        guard let compiler = program.mapped?.compiler else { return [] }
        return program.mappings.flatMap { compiled -> [String] in
            guard case let .perKey(rows) = compiled.ids, let table = compiler.differ.old.table(named: rows.sourceTable) else { return [] }
            return table.columns.map { column in
                PlaceholderQuoting.text(rows.rowsDiffering(in: "source.\(id: compiler.differ.currentName(ofOldColumn: column.name, in: table.name))"))
            }
        }
    }
}
