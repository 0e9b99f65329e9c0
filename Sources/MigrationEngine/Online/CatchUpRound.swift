import EntityModel
import Foundation
import LibPQ
import TypedSQL

/// One catch-up round of an online migration, in the caller's transaction: the source rows the app
/// changed since the shadow was built are migrated again, and their results replace what the
/// shadow holds for them.
///
/// The caller fills the change set, `pg_temp._tm_changed (relation, key)`: the live table and the
/// key of every row inserted, updated or deleted (``prepare(on:)`` creates it). Then, as the
/// steps' own executor would do it for the whole tenant:
/// 1. rows whose mapping reads a changed row through a foreign key (a key path) join the set;
/// 2. a delta schema gets the source version's tables, holding the changed rows as they are now
///    (a deleted row is simply absent) and, so that every foreign key and key path resolves, the
///    rows they refer to; and the archive entries of all of them;
/// 3. the caught-up steps run there with the ``StepExecutor``: the same SQL, account, archive,
///    restore and validation as the full run;
/// 4. for each destination table, the rows made from changed source rows replace the shadow's
///    (inserted, updated, or deleted where the delta has none), and so do their archive entries.
///
/// Replaying is idempotent: a row is always re-read from the live table by its key, so the order
/// of changes and a change seen twice do not matter.
public struct CatchUpRound {
    public let plan: OnlinePlan
    /// The tenant's schema (the live tables), the shadow, and the delta schema this round uses.
    public let live: String
    public let shadow: String
    public let delta: String
    public let options: StepExecutor.Options
    public let connection: Connection

    /// How the shadow's and the delta's names are spelled in their schemas (the live tables have
    /// the model's): the model's own where each has a schema of its own (plain PostgreSQL), and
    /// ``TableNaming/citusShadow`` and ``TableNaming/citusDelta`` where all three share the
    /// tenant's schema (Citus, docs/Citus.md).
    public let shadowNaming: TableNaming
    public let deltaNaming: TableNaming

    public init(plan: OnlinePlan, live: String, shadow: String, delta: String, options: StepExecutor.Options, connection: Connection,
                shadowNaming: TableNaming = .model, deltaNaming: TableNaming = .model) {
        self.plan = plan
        self.live = live
        self.shadow = shadow
        self.delta = delta
        self.options = options
        self.connection = connection
        self.shadowNaming = shadowNaming
        self.deltaNaming = deltaNaming
    }

    /// The table of changed rows, `_tm_changed (relation text, key text[], direct boolean,
    /// renamed_to text[])`, each key as the change log spells it (``CapturedKey``), `renamed_to`
    /// the key the app's UPDATE gave the row (``renamedKeys(order:)``);
    /// `direct` false for a row that did not change itself but whatever refers to it did (its fate
    /// may depend on that). A temporary one, `pg_temp._tm_changed`, for ``ShadowTables/sync(on:)``
    /// and a round whose work tables are temporary; else among the round's work tables
    /// (``changed``, see ``workTablesInLiveSchema``).
    public static let changedTable = "_tm_changed"
    static let neededTable = "_tm_needed"

    static var changed: SQL { "pg_temp.\(id: changedTable)" }

    /// This round's table of changed rows (the caller fills it, after ``prepare()``).
    public var changed: SQL { work(Self.changedTable) }
    var needed: SQL { work(Self.neededTable) }

    /// Creates the temporary table of changed rows, `pg_temp._tm_changed`, and that of the rows a
    /// round needs (dropped at commit).
    public static func prepare(on connection: Connection) throws {
        try connection.pipeline(workTableCreations(createWork: { "CREATE TEMPORARY TABLE \(id: $0) \($1) ON COMMIT DROP" }), schema: "pg_temp")
    }

    /// Creates the round's tables of changed and needed rows (``changed``): temporary ones, or,
    /// where the work tables are in the live schema, tables there that the round drops.
    public func prepare() throws {
        try connection.pipeline(Self.workTableCreations(createWork: createWork(_:columns:)), schema: live)
    }

    private static func workTableCreations(createWork: (String, SQL) -> SQL) -> [SQL] {
        [
            createWork(changedTable, "(relation text NOT NULL, key pg_catalog.text[] NOT NULL, direct boolean NOT NULL, renamed_to pg_catalog.text[], PRIMARY KEY (relation, key))"),
            createWork(neededTable, "(relation text NOT NULL, key pg_catalog.text[] NOT NULL, PRIMARY KEY (relation, key))"),
        ]
    }

    /// What a round did.
    public struct Outcome: Sendable, Hashable {
        /// Source rows migrated again because they changed or read a changed row.
        public var changedRows = 0
        /// Rows the delta held (the changed ones and those they refer to).
        public var deltaRows = 0
    }

    var source: RelationalSchema { plan.plan.source.relationalSchema() }
    /// The tables the caught-up steps end with.
    var destination: RelationalSchema { plan.caughtUpVersion.relationalSchema() }

    /// Runs the round; the change set must be filled. When a caught-up step fails in the delta,
    /// `failing` is told which before its error is thrown: the failure is that step's, as offline.
    public func run(failing: (MigrationStep) -> Void = { _ in }) throws -> Outcome {
        var outcome = Outcome()
        // Statistics, so that every read below looks rows up by key rather than scans a live table.
        try connection.execute("ANALYZE \(changed)", schema: live)
        try addReaders()
        try addDistinctGroups()
        outcome.changedRows = Int(try connection.execute("SELECT pg_catalog.count(*)::pg_catalog.int8 FROM \(changed)", schema: live)
            .first?.decode(Int64.self, at: 0) ?? 0)
        guard outcome.changedRows > 0 else {
            if workTablesInLiveSchema { try dropDelta() }
            return outcome
        }
        try collectNeededRows()
        outcome.deltaRows = try buildDelta()
        try matchDistinctKeys()
        var executor = StepExecutor(schema: delta, connection: connection, options: options)
        executor.naming = deltaNaming
        for step in plan.caughtUp {
            do {
                _ = try executor.run(step)
            } catch {
                failing(step)
                throw error
            }
        }
        try merge()
        try renumberDistinctRows()
        try dropDelta()
        return outcome
    }

    // MARK: - The change set

    /// Adds, until nothing more is added, the rows whose mapping reads a changed row through a key
    /// (a row that only needs its fate decided again changes nothing its readers read).
    private func addReaders() throws {
        guard !plan.lineage.readers.isEmpty else { return }
        while true {
            let statements: [SQL] = plan.lineage.readers.compactMap { reader in
                guard let table = source.table(named: reader.table), let referenced = source.table(named: reader.referencedTable),
                      let column = table.column(named: reader.column) else { return nil }
                return "INSERT INTO \(changed) AS tm_c (relation, key, direct) SELECT \(literal: reader.table), \(keyArray("r", of: table)), true "
                    + "FROM \(schema: live, table: reader.table) AS r WHERE r.\(id: reader.column) IN "
                    + "(SELECT \(CapturedKey.element(0, as: column.type, of: referenced.name)) FROM \(changed) AS c WHERE c.relation = \(literal: referenced.name) AND c.direct) "
                    + "ON CONFLICT (relation, key) DO UPDATE SET direct = true WHERE NOT tm_c.direct"
            }
            let added = try connection.pipeline(statements, schema: live).reduce(0) { $0 + $1.affectedRows }
            if added == 0 { return }
        }
    }

    /// The changed rows; for each changed row that a mapping reads through a key, one row that
    /// refers to it, if any (so that "some row refers to it" holds in the delta as it does live);
    /// and, transitively, every row they refer to by a foreign key.
    private func collectNeededRows() throws {
        try connection.execute("INSERT INTO \(needed) (relation, key) SELECT relation, key FROM \(changed)", schema: live)
        let witnesses: [SQL] = Set(plan.lineage.readers).sorted { ($0.table, $0.column) < ($1.table, $1.column) }.compactMap { reader in
            guard let table = source.table(named: reader.table), let column = table.column(named: reader.column) else { return nil }
            let key = table.primaryKey.columns
            let order: [SQL] = key.map { "r.\(id: $0)" }
            // One row per referenced row, found by the foreign key's index.
            return "INSERT INTO \(needed) (relation, key) SELECT \(literal: reader.table), \(keyArray("w", of: table)) "
                + "FROM \(changed) AS c CROSS JOIN LATERAL (SELECT \(ids: key) FROM \(schema: live, table: reader.table) AS r "
                + "WHERE r.\(id: reader.column) = \(CapturedKey.element(0, as: column.type, of: reader.referencedTable)) ORDER BY \(order, joinedBy: ", ") LIMIT 1) AS w "
                + "WHERE c.relation = \(literal: reader.referencedTable) ON CONFLICT DO NOTHING"
        }
        if !witnesses.isEmpty || !plan.distinct.isEmpty { try connection.pipeline(witnesses + distinctFirstRows(), schema: live) }
        if try TenantArchive.exists(inSchema: live, on: connection) {
            let links = archivedLinkTargets(in: shadowTable(ShadowTables.liveArchive))
            if !links.isEmpty { try connection.pipeline(links, schema: live) }
            let rows = archivedRowsTargets(in: shadowTable(ShadowTables.liveArchive))
            if !rows.isEmpty { try connection.pipeline(rows, schema: live) }
        }
        try connection.execute("ANALYZE \(needed)", schema: live)
        let references = source.tables.flatMap { table in table.foreignKeys.filter { $0.columns.count == 1 }.map { (table, $0) } }
        while !references.isEmpty {
            let statements: [SQL] = references.map { table, key in
                // The foreign key spelt as the referenced key is (their types may differ: an
                // integer referring to a bigint), so that both find one entry.
                let referenced = source.table(named: key.referencedTable)
                let type = referenced.flatMap { $0.column(named: key.referencedColumns.first ?? "id") }?.type
                    ?? table.column(named: key.columns[0])?.type ?? .bigint
                let value = CapturedKey.text(of: "(t.\(id: key.columns[0]))\(type.cast)", type)
                return "INSERT INTO \(needed) (relation, key) SELECT \(literal: key.referencedTable), ARRAY[\(value)]::pg_catalog.text[] "
                    + "FROM \(schema: live, table: table.name) AS t WHERE t.\(id: key.columns[0]) IS NOT NULL AND "
                    + "\(keyTuple("t", table.primaryKey.columns)) IN (\(keysOf(table, in: needed))) ON CONFLICT DO NOTHING"
            }
            let added = try connection.pipeline(statements, schema: live).reduce(0) { $0 + $1.affectedRows }
            if added == 0 { break }
        }
        try connection.execute("ANALYZE \(needed)", schema: live)
    }

    // MARK: - The delta

    /// Creates the delta schema with the source version's tables, fills them from the live tables,
    /// adds their keys and indexes, and copies the archive entries of their rows.
    ///
    /// - Returns: the rows copied.
    private func buildDelta() throws -> Int {
        let tables = ShadowTables(version: plan.plan.source, live: live, schema: delta, naming: deltaNaming)
        if !deltaInLiveSchema { try connection.execute("CREATE SCHEMA \(id: delta)", schema: delta) }
        // The delta's rows are merged into the shadow by column name: the model's order will do,
        // without reading the live one in every round (the last one runs in the cutover).
        try tables.create(on: connection, keepingLiveColumnOrder: false)
        let fills: [SQL] = source.tables.map { table in
            let columns = table.columns.map(\.name)
            let selected: [SQL] = table.columns.map { ShadowTables.carried("l", $0) }
            return "INSERT INTO \(deltaTable(table.name)) (\(ids: columns))\(table.overridingSystemValue) SELECT \(selected, joinedBy: ", ") FROM \(schema: live, table: table.name) AS l "
                + "WHERE \(keyTuple("l", table.primaryKey.columns)) IN (\(keysOf(table, in: needed)))"
        }
        let rows = try connection.pipeline(fills, schema: delta).reduce(0) { $0 + $1.affectedRows }
        try tables.finish(on: connection)
        if try TenantArchive.exists(inSchema: live, on: connection) {
            // From the copy of the live archive made with the shadow, by table and row.
            let archive = TenantArchive.tableName
            var statements: [SQL] = ["CREATE TABLE \(deltaTable(archive)) (LIKE \(schema: live, table: archive) INCLUDING ALL)"]
            for (table, names) in archivedRows() {
                statements.append("INSERT INTO \(deltaTable(archive)) SELECT a.* FROM \(shadowTable(ShadowTables.liveArchive)) AS a "
                    + "WHERE \(archivedEntries(of: table, names: names, in: needed))")
            }
            statements += archivedRowsEntries(from: shadowTable(ShadowTables.liveArchive), into: deltaTable(archive))
            try connection.pipeline(statements, schema: delta)
        }
        return rows
    }

    /// Source tables, and every name their rows have along the steps (the archive keys entries
    /// by table name, and row id or key).
    private func archivedRows() -> [(Table, [String])] {
        source.tables.filter { $0.primaryKey.columns == ["id"] || ArchiveRowKey($0) != nil }.map { table in
            (table, (plan.lineage.names[table.name] ?? [table.name]).sorted())
        }
    }

    /// A condition on the archive's alias `a`: the entry is of a row of `table` (its rows named
    /// `names` along the steps) whose key is in change set `set`. By `row_id` where an integer
    /// `id` keys the table, else by `row_key` (``ArchiveRowKey``): the set's key cast to the key's
    /// types and written as the migrator writes a `row_key` (each value's `::text` under the
    /// session settings it fixes), so that the entry's own column is compared, as `row_id` is.
    /// (Citus deparses an INSERT … SELECT whose filter compares an expression of the entry with a
    /// subquery into invalid SQL: 42601, `AND ( IS NOT NULL)`.)
    func archivedEntries(of table: Table, names: [String], in set: SQL) -> SQL {
        let named: SQL = "a.table_name IN (\(literals: names))"
        guard let key = ArchiveRowKey(table) else {
            return "\(named) AND a.row_id IN (\(keysOf(table, in: set, as: [.bigint])))"
        }
        let texts: [SQL] = key.columns.enumerated().map { index, column in
            "(\(CapturedKey.element(index, as: column.type, of: table.name)))::pg_catalog.text"
        }
        let rowKey: SQL = texts.count == 1 ? texts[0] : CapturedKey.arrayText(texts)
        return "\(named) AND a.row_id = 0 AND a.row_key IN (SELECT \(rowKey) FROM \(set) AS c WHERE c.relation = \(literal: table.name))"
    }

    // MARK: - The merge

    /// Replaces the shadow's rows (and archive entries) made from changed source rows with the
    /// delta's: keys the app renamed renamed in place, parents first; deletions children first,
    /// then insertions and updates parents first (the rows made per key first of all, see
    /// ``OnlineDistinct``), then the rows of keys that went.
    private func merge() throws {
        let order = StepArchive.dependencyOrder(destination)
        var statements: [SQL] = renamedKeys(order: order)
        for name in order.reversed() {
            guard let table = destination.table(named: name), let origin = plan.lineage.origins[name],
                  let sourceTable = source.table(named: origin.sourceTable) else { continue }
            let types = origin.destinationKey.map { table.column(named: $0)?.type ?? .bigint }
            statements.append("DELETE FROM \(shadowTable(name)) AS d WHERE \(keyTuple("d", origin.destinationKey)) IN (\(keysOf(sourceTable, in: changed, as: types))) "
                + "AND NOT EXISTS (SELECT 1 FROM \(deltaTable(name)) AS x WHERE \(keyTuple("x", table.primaryKey.columns)) = \(keyTuple("d", table.primaryKey.columns)))")
        }
        statements += upsertDistinctRows(order: order)
        for name in order {
            guard let table = destination.table(named: name), let origin = plan.lineage.origins[name],
                  let sourceTable = source.table(named: origin.sourceTable) else { continue }
            let columns = table.columns.map(\.name)
            let key = table.primaryKey.columns
            let types = origin.destinationKey.map { table.column(named: $0)?.type ?? .bigint }
            let selected: [SQL] = columns.map { mergedValue(of: $0, in: table) }
            let updates: [SQL] = columns.filter { !key.contains($0) }.map { "\(id: $0) = EXCLUDED.\(id: $0)" }
            let conflict: SQL = updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET \(updates, joinedBy: ", ")"
            statements.append("INSERT INTO \(shadowTable(name)) (\(ids: columns))\(table.overridingSystemValue) SELECT \(selected, joinedBy: ", ") FROM \(deltaTable(name)) AS x "
                + "WHERE \(keyTuple("x", origin.destinationKey)) IN (\(keysOf(sourceTable, in: changed, as: types))) ON CONFLICT (\(ids: key)) \(conflict)")
        }
        statements += finishDistinctRows(order: order)
        try connection.pipeline(statements, schema: shadow)
        try mergeArchive()
    }

    /// The shadow's rows whose source key the app changed (an UPDATE of the key: the change set's
    /// `renamed_to`) take the new key in place, parents first, as the app's UPDATE did live: their
    /// foreign keys' `ON UPDATE CASCADE` moves the rows that refer to them, so the merge neither
    /// deletes a parent that a child still refers to `ON DELETE RESTRICT` nor inserts the new one
    /// beside the old (whose unique values it has). Only a rename that stands alone: not into a
    /// key that is renamed too or that another key is renamed into, not from a key another is
    /// renamed into, not onto a key the shadow has, not in a table whose key is an identity
    /// `GENERATED ALWAYS` (the app cannot rename those); the others are merged as deletions and
    /// insertions, as before.
    func renamedKeys(order: [String]) -> [SQL] {
        order.compactMap { name -> SQL? in
            guard let table = destination.table(named: name), let origin = plan.lineage.origins[name], source.table(named: origin.sourceTable) != nil,
                  table.overridingSystemValue.isEmpty, !origin.destinationKey.isEmpty else { return nil }
            let types = origin.destinationKey.map { table.column(named: $0)?.type ?? .bigint }
            let relation = origin.sourceTable
            let assignments: [SQL] = zip(origin.destinationKey, types).enumerated().map { index, column in
                "\(id: column.0) = \(CapturedKey.element(index, as: column.1, of: relation, in: "renamed_to"))"
            }
            let old: [SQL] = types.enumerated().map { CapturedKey.element($0.offset, as: $0.element, of: relation) }
            let new: [SQL] = types.enumerated().map { CapturedKey.element($0.offset, as: $0.element, of: relation, in: "renamed_to") }
            return "UPDATE \(shadowTable(name)) AS t SET \(assignments, joinedBy: ", ") FROM \(changed) AS c "
                + "WHERE c.relation = \(literal: relation) AND c.renamed_to IS NOT NULL AND \(keyTuple("t", origin.destinationKey)) = (\(old, joinedBy: ", ")) "
                + "AND NOT EXISTS (SELECT FROM \(changed) AS o WHERE o.relation = c.relation AND o.key <> c.key AND o.renamed_to IS NOT NULL "
                + "AND (o.key = c.renamed_to OR o.renamed_to = c.key OR o.renamed_to = c.renamed_to)) "
                + "AND NOT EXISTS (SELECT FROM \(shadowTable(name)) AS x WHERE \(keyTuple("x", origin.destinationKey)) = (\(new, joinedBy: ", ")))"
        }
    }

    /// The archive entries of the changed rows: the delta's replace the shadow's.
    private func mergeArchive() throws {
        guard try shadowHasArchive(), try deltaHasArchive() else { return }
        let archive = TenantArchive.tableName
        let columns = try connection.execute(
            "SELECT a.attname::pg_catalog.text FROM pg_catalog.pg_attribute AS a WHERE a.attrelid = pg_catalog.to_regclass(\(bind: deltaTable(archive).text(schema: delta))) "
                + "AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum", schema: delta
        ).map { try $0.decode(String.self, at: 0) }
        var statements: [SQL] = []
        for (table, names) in archivedRows() {
            let rows = archivedEntries(of: table, names: names, in: changed)
            let selected: [SQL] = columns.map { "a.\(id: $0)" }
            statements.append("DELETE FROM \(shadowTable(archive)) AS a WHERE \(rows)")
            statements.append("INSERT INTO \(shadowTable(archive)) (\(ids: columns)) SELECT \(selected, joinedBy: ", ") FROM \(deltaTable(archive)) AS a WHERE \(rows)")
            statements += translatedLeftValues(of: rows)
        }
        // (From the copy of the live archive: none where the tenant had no archive when the shadow
        // was made. Not on Citus yet: there the statements run a distributed query on a shard, XX000.)
        if !deltaInLiveSchema, try TenantArchive.exists(inSchema: live, on: connection) { statements += supersededByDeletions(columns: columns) }
        statements += wayBackMarkersLastRows()
        try connection.pipeline(statements, schema: shadow)
    }
}

extension CatchUpRound {
    /// The last step's way back markers (``RecordedWayBack``) record their table's last row id at
    /// the way up: the build's, in the shadow. Rows the app inserted since are merged by the
    /// rounds, so each marker takes its table's last id in the shadow now, as an offline run of the
    /// data as it is now records it (rows past the recorded id are given back by the family's way
    /// back as it is at the way down, not by the recorded one).
    func wayBackMarkersLastRows() -> [SQL] {
        let archive = shadowTable(TenantArchive.tableName)
        // (A table keyed otherwise than by an integer id has no last row: its marker's is NULL.)
        return destination.tables.filter { ArchiveRowKey($0) == nil && $0.primaryKey.columns == ["id"] }.map { table in
            let last: SQL = "COALESCE((SELECT pg_catalog.max(t.id) FROM \(shadowTable(table.name)) AS t)::pg_catalog.text, 'null')::pg_catalog.jsonb"
            return "UPDATE \(archive) AS a SET target = pg_catalog.jsonb_set(a.target::pg_catalog.jsonb, '{lastRow}', \(last))::pg_catalog.text "
                // The marker's row id is 0: found through the archive's (table_name, row_id) index,
                // not among every entry of the table (a million at 1,000,000 rows, in the cutover too).
                + "WHERE a.table_name = \(literal: table.name) AND a.row_id = 0 AND a.column_name = \(literal: WayBackProof.markerColumn) "
                + "AND a.step_to = \(literal: plan.caughtUpVersion.name) "
                + "AND CASE WHEN a.target LIKE '{%' THEN a.target::pg_catalog.jsonb ? 'lastRow' ELSE false END"
        }
    }
}
