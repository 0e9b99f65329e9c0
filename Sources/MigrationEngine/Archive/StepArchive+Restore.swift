import EntityModel
import LibPQ
import TypedSQL

extension StepArchive {
    /// At the step's start, before it changes anything: finds the entries it will give back (those
    /// of every pair it crosses, crossed the other way), and keeps only those whose row still holds
    /// what the way up left (compare-and-restore): the column's value where it survived, or what a
    /// mapping derived from it where it was dropped. A value the app changed since wins: its entry
    /// is not restored and stays until pruned.
    ///
    /// Runs whether or not this run archives (`--no-archive` never skips a restore). Entries an
    /// earlier release keyed by a fused step's ends are first rekeyed by pair (``LegacyEntries``).
    func checkRestorable() throws {
        guard !plan.restores.isEmpty, try archiveExists() else { return }
        var keys = try entryKeys()
        if let family = plan.family, LegacyEntries.hasLegacyKeys(keys.keys, family: family) {
            try LegacyEntries(family: family, schema: schema, connection: connection).rekey(keys.keys)
            keys = try entryKeys()
        }
        for restore in plan.restores {
            let entries = keys[restore.key] ?? []
            restorable[restore.key] = entries
            for (table, column) in entries where column == WayBackProof.markerColumn {
                try checkWayBack(restore, table: table)
            }
            // Links last: a link into a keyed table is checked against its target's values, which
            // this step may give back too (``LinkTarget/sameKeyedTarget``).
            let values = entries.filter { !$0.column.isEmpty && $0.column != WayBackProof.markerColumn && $0.column != Self.identityColumn }
            let isLink = { (entry: (table: String, column: String)) -> Bool in
                restore.entrySchema.table(named: entry.table).flatMap { LinkTarget.reference(by: entry.column, of: $0, in: restore.entrySchema) } != nil
            }
            for (table, column) in values.filter({ !isLink($0) }) + values.filter(isLink) {
                try check(restore, table: table, column: column)
            }
        }
    }

    /// Where the way up spared values of `table` that this step, its way back, no longer derives as
    /// it did then (its marker entry, ``WayBackProof/markerColumn``): gives them back by the way
    /// back the archive recorded (``RecordedWayBack``), or fails (``WayBackChanged``) where that
    /// cannot be trusted. Where the way up spared nothing (its proof withheld: every row archived),
    /// the archive alone gives back what it took: the entries are given back as archived.
    private func checkWayBack(_ restore: PairRestore, table: String) throws {
        let rows = try connection.execute(
            "SELECT value, left_value, target FROM \(archiveTable) AS a WHERE \(entryIs("a", restore.key, table, WayBackProof.markerColumn))", schema: schema)
        for row in rows {
            let signature = try row.decode(String?.self, at: 0), file = try row.decode(String?.self, at: 1), target = try row.decode(String?.self, at: 2)
            guard signature != restore.signatures[table], try !giveBackAsRecorded(restore, table: table, signature: signature, target: target) else { continue }
            if RecordedWayBack.Record(target: target)?.everyRow == true {
                archivedWithoutWayBack[restore.key, default: []].insert(table)
                continue
            }
            throw WayBackChanged(pair: "\(restore.key.from) → \(restore.key.to)", table: table, file: file ?? "the way back's mapping model")
        }
    }

    /// Every `(step_from, step_to)` in the archive and its tables and columns; notes how many
    /// entries there are.
    private func entryKeys() throws -> [ArchivePlan.PairKey: [(table: String, column: String)]] {
        var keys: [ArchivePlan.PairKey: [(table: String, column: String)]] = [:]
        entryCount = 0
        for row in try connection.execute(
            "SELECT step_from, step_to, table_name, column_name, pg_catalog.count(*) FROM \(archiveTable) WHERE NOT superseded GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4", schema: schema) {
            keys[ArchivePlan.PairKey(from: try row.decode(String.self, at: 0), to: try row.decode(String.self, at: 1)), default: []]
                .append((try row.decode(String.self, at: 2), try row.decode(String.self, at: 3)))
            entryCount += Int(try row.decode(Int64.self, at: 4))
        }
        return keys
    }

    /// `a.step_from = … AND a.step_to = … AND a.table_name = … AND a.column_name = …`, as literals,
    /// of an entry not superseded (superseded ones come back only on request).
    func entryIs(_ alias: SQL, _ key: ArchivePlan.PairKey, _ table: String, _ column: String) -> SQL {
        "\(alias).step_from = \(literal: key.from) AND \(alias).step_to = \(literal: key.to) "
            + "AND \(alias).table_name = \(literal: table) AND \(alias).column_name = \(literal: column) AND NOT \(alias).superseded"
    }

    /// Marks the entries of one column that may be restored (`compares` false): those without a
    /// comparison, and those whose row still holds what the way up left. An entry the way up
    /// copied because this step, its way back, would not give the value back (``WayBackProof``)
    /// holds what this step derived then: it is restored where this step still derives that.
    private func check(_ restore: PairRestore, table: String, column: String) throws {
        let key = table + "." + column
        var entries: [SQL] = [entryIs("a", restore.key, table, column), "a.compares"]
        // Entries whose archived value wins whatever the row holds now.
        var winning: SQL?
        // (Only a dropped column's entries can hold what a way back derived.)
        if restore.checks[key]?.derived != false {
            let fingerprinted = WayBackProof.isFingerprint("a")
            // (Not this step's own proof where its way back changed since: the entries hold what
            // another declaration derived.)
            let own = archivedWithoutWayBack[restore.key]?.contains(table) == true ? nil : restore.proofs[key]
            if let proof = recordedProofs[restore.key]?[key] ?? own {
                try connection.execute("UPDATE \(archiveTable) AS a SET compares = false FROM \(proof.from) "
                    + "WHERE \(entries, joinedBy: " AND ") AND \(fingerprinted) AND \(ArchiveRowKey.rowIs("source", of: destinationSchema.table(named: table) ?? sourceSchema.table(named: table), entry: "a")) "
                    + "AND \(proof.fingerprint) IS NOT DISTINCT FROM a.left_value", schema: schema)
                entries.append("NOT \(fingerprinted)")
            } else {
                // This step no longer derives what they were compared with.
                winning = fingerprinted
            }
        }
        guard let check = restore.checks[key], check.columns.allSatisfy({ $0.live != nil }) else {
            // Nothing to compare with at this step's start: the archived value wins.
            try connection.execute("UPDATE \(archiveTable) AS a SET compares = false WHERE \(entries, joinedBy: " AND ")", schema: schema)
            return
        }
        var failing: [SQL] = []
        // The row each entry keeps: by its integer id, or by its key (``ArchiveRowKey``).
        let rowKey = ArchiveRowKey(check.table, in: sourceSchema)
        func value(_ column: PairRestore.Check.Column) -> SQL {
            let live: SQL = "t.\(id: column.live!)\(column.type.cast)::text"
            guard !column.nearer.isEmpty else { return live }
            // A pair this step crosses first may have archived the value the way up left here.
            let cases = column.nearer.map { nearer -> SQL in
                let key = plan.restores[nearer.crossing].key
                let entry: SQL = "FROM \(archiveTable) AS e WHERE \(entryIs("e", key, nearer.table, nearer.column)) AND \(rowKey?.matches("t", entry: "e") ?? "e.row_id = t.id")"
                failing.append("(\(entryIs("e", key, nearer.table, nearer.column)))")
                return "WHEN EXISTS (SELECT 1 \(entry)) THEN (SELECT e.value \(entry) LIMIT 1)"
            }
            return "(CASE \(cases, joinedBy: " ") ELSE \(live) END)"
        }
        let fingerprint = check.derived ? try jsonObjectText(check.columns.map { ($0.key, value($0)) }) : value(check.columns[0])
        let orWinning: SQL = winning.map { " OR \($0)" } ?? ""
        var conditions = entries + [rowKey?.matches("t", entry: "a") ?? "t.id = a.row_id", "(\(fingerprint) IS NOT DISTINCT FROM a.left_value\(orWinning))"]
        if !failing.isEmpty {
            // …unless that entry's own comparison failed: the app's value wins there too.
            conditions.append("NOT EXISTS (SELECT 1 FROM \(archiveTable) AS e WHERE \(rowKey?.matches("t", entry: "e") ?? "e.row_id = t.id") AND e.compares AND (\(failing, joinedBy: " OR ")))")
        }
        try connection.execute("UPDATE \(archiveTable) AS a SET compares = false FROM \(table: check.table) AS t WHERE \(conditions, joinedBy: " AND ")",
                               schema: schema)
    }

    /// Tables this step makes: a mapping or policy numbers their rows anew.
    private var madeAnew: Set<String> { Set(destinationSchema.tables.map(\.name)).subtracting(names.survivingTables.values) }

    /// The whole-row entries of `restore` that go back into a table of the step's destination, in
    /// dependency order (parents before children), and for each such table its entry table.
    private func wholeRows(_ restore: PairRestore) -> (rows: [(table: String, target: Table)], entryTables: [String: String]) {
        let order = Dictionary(uniqueKeysWithValues: Self.dependencyOrder(restore.endSchema).enumerated().map { ($1, $0) })
        var entryTables: [String: String] = [:]
        let rows = (restorable[restore.key] ?? []).filter { $0.column.isEmpty }.compactMap { entry -> (table: String, target: Table)? in
            guard let name = restore.toEnd.table(entry.table), let target = restore.endSchema.table(named: name) else { return nil }
            entryTables[name] = entry.table
            return (entry.table, target)
        }
        return (rows.sorted { (order[$0.target.name] ?? .max) < (order[$1.target.name] ?? .max) }, entryTables)
    }

    /// The archive was written in this transaction or recently: without statistics the planner
    /// may join it with a quadratic nested loop (seen on the benchmark: 250 s for 33,000 values).
    /// Best effort: a failure (a cluster that refuses ANALYZE here) only costs the statistics.
    /// (A few hundred entries join fast whatever the plan.) Once per step.
    private func analyzeArchive() {
        guard !analyzed else { return }
        analyzed = true
        if entryCount > 500 { _ = try? connection.savepoint { _ = try $0.execute("ANALYZE \(archiveTable)", schema: schema) } }
    }

    /// Once the step's mappings, policies and closing stage ran, before the proofs of its way back
    /// (``afterClosing()``) look at what it leaves: where a pair gives back rows of a table this
    /// step made anew or links into one, gives back every pair's whole rows (made-anew tables' with
    /// their ids, ``restoreRowsKeepingIds(_:of:into:)``), then those links (``LinkTarget``). A way
    /// back that derives a value through such a link (`source.status.name`) reads them, so the
    /// proof must see them as the step leaves them. ``restore()`` gives back the rest.
    ///
    /// Not where a whole row goes into a table whose proved columns are still to be dropped (a
    /// required one would refuse the row), nor where `enumsWait` (a value this transaction added
    /// to an enum type is usable only once the type is rebuilt, after the proofs): then
    /// ``restore()`` gives back everything, after the proofs, as before.
    func restoreMadeAnew(enumsWait: Bool) throws {
        guard !enumsWait, restorable.values.contains(where: { !$0.isEmpty }) else { return }
        let madeAnew = self.madeAnew
        guard !madeAnew.isEmpty else { return }
        let dropping: Set<String> = copies ? Set(plan.provedDrops.compactMap { operation -> String? in
            if case let .dropColumn(table, _) = operation { table } else { nil }
        }) : []
        guard !plan.restores.contains(where: { wholeRows($0).rows.contains { dropping.contains($0.target.name) } }) else { return }
        // Links into tables made anew, by pair.
        let links = plan.restores.map { restore in
            (restorable[restore.key] ?? []).filter { entry in
                guard Self.holdsValues(entry.column), let (name, column) = restore.toEnd.column(entry.column, of: entry.table),
                      let target = restore.endSchema.table(named: name) else { return false }
                return LinkTarget.referencedTable(by: column, of: target, in: restore.endSchema).map { madeAnew.contains($0.name) } == true
            }
        }
        guard links.contains(where: { !$0.isEmpty }) || plan.restores.contains(where: { wholeRows($0).rows.contains { madeAnew.contains($0.target.name) } })
        else { return }
        analyzeArchive()
        // Every pair's rows, then the links (a link may name a row a later pair gives back).
        for restore in plan.restores {
            restoredEarly += try restoreWholeRows(restore, madeAnew: madeAnew)
            restoredEarlyEntries[restore.key] = ["."]
        }
        for (restore, links) in zip(plan.restores, links) {
            for (table, column) in links {
                guard let (name, targetColumn) = restore.toEnd.column(column, of: table), let target = restore.endSchema.table(named: name),
                      let definition = target.column(named: targetColumn) else { continue }
                restoredEarly += try restoreValues(restore, of: table, column, into: definition, of: target, madeAnew: madeAnew)
                restoredEarlyEntries[restore.key, default: []].insert(table + "." + column)
            }
        }
    }

    /// The whole rows of `restore`, parents before children: into tables this step recreated, by
    /// their ids; into tables it made anew (a mapping or policy filled them), with their ids too
    /// (``restoreRowsKeepingIds(_:of:into:)``), or else those no source row made again; into tables
    /// a mapping fills in place, those no source row made again (``restoreRowsNoMappingMade``).
    private func restoreWholeRows(_ restore: PairRestore, madeAnew: Set<String>) throws -> Int {
        let filled = Set(names.mappingFilledTables)
        let (rows, entryTables) = wholeRows(restore)
        var restored = 0
        for (table, target) in rows {
            let superseded = supersededCount
            defer { findings.add(ArchiveFinding(kind: .rowsSuperseded, table: table, column: nil, rows: supersededCount - superseded, in: restore.entrySchema)) }
            if madeAnew.contains(target.name), let count = try restoreRowsKeepingIds(restore, of: table, into: target) {
                restored += count
                continue
            }
            if !filled.contains(target.name) {
                restored += try restoreRows(restore, of: table, into: target, leavingTheRest: madeAnew.contains(target.name))
            }
            if filled.contains(target.name) || madeAnew.contains(target.name) {
                restored += try restoreRowsNoMappingMade(restore, of: table, into: target, entryTables: entryTables,
                                                         filledByMapping: filled.contains(target.name))
            }
        }
        return restored
    }

    /// Whether entries of `column` hold a column's values (not whole rows, markers or identities).
    private static func holdsValues(_ column: String) -> Bool {
        !column.isEmpty && column != WayBackProof.markerColumn && column != identityColumn
    }

    /// After the step's normal work: puts back, set-based (one statement per table and column),
    /// what ``checkRestorable()`` kept and ``restoreMadeAnew(enumsWait:)`` did not give back already, pair
    /// by pair in the order the step crosses them, each entry's names translated to the step's
    /// destination; removes the entries it used. Entries
    /// it cannot use stay, marked superseded (``supersededCount``), until pruned or restored on request.
    /// The pair's other entries, which nothing will use any more (rows of a table a mapping made
    /// anew, the way up's markers), are removed too: the pair is consumed.
    ///
    /// - Whole rows (of a table or entity the up step removed) go back into tables this step
    ///   recreated rather than filled by a mapping, where no row has their id yet and the rows
    ///   they refer to exist.
    /// - Values go back into rows that still exist. Rows the app created since have no entries
    ///   and keep the step's normal result.
    ///
    /// - Returns: the number of values and rows restored, with those of ``restoreMadeAnew(enumsWait:)``.
    @discardableResult
    func restore() throws -> Int {
        guard restorable.values.contains(where: { !$0.isEmpty }) else { return 0 }
        analyzeArchive()
        let madeAnew = self.madeAnew
        var restored = restoredEarly
        for restore in plan.restores {
            let entries = restorable[restore.key] ?? []
            let early = restoredEarlyEntries[restore.key] ?? []
            // Rows first, parents before children, then values (which may refer to restored rows).
            if !early.contains(".") { restored += try restoreWholeRows(restore, madeAnew: madeAnew) }
            for (table, column) in entries where column == Self.identityColumn {
                guard let name = restore.toEnd.table(table), restore.endSchema.table(named: name)?.column(named: "id")?.isIdentity == true
                else { continue }
                try restoreIdentity(restore, of: table, into: name)
            }
            try restoreSequencePositions(restore, entries)
            // Links last: a link into a keyed table is checked against its target's values, which
            // this step may give back too (``LinkTarget/sameKeyedTarget``).
            let values = entries.filter { Self.holdsValues($0.column) && !early.contains($0.table + "." + $0.column) }
            let isLink = { (entry: (table: String, column: String)) -> Bool in
                restore.entrySchema.table(named: entry.table).flatMap { LinkTarget.reference(by: entry.column, of: $0, in: restore.entrySchema) } != nil
            }
            for (table, column) in values.filter({ !isLink($0) }) + values.filter(isLink) {
                guard let (name, targetColumn) = restore.toEnd.column(column, of: table), let target = restore.endSchema.table(named: name),
                      let definition = target.column(named: targetColumn) else { continue }
                restored += try restoreValues(restore, of: table, column, into: definition, of: target, madeAnew: madeAnew)
            }
            let pair: SQL = "a.step_from = \(literal: restore.key.from) AND a.step_to = \(literal: restore.key.to)"
            // The pair's entries are consumed: what was put back is gone, what was not used is
            // superseded (kept). What is left nothing will use any more: the way up's markers,
            // which served their check, and entries no table or column of this step takes (rows
            // of a table a mapping made anew). The next crossing the other way archives afresh.
            try connection.execute("DELETE FROM \(archiveTable) AS a WHERE \(pair) AND NOT a.superseded", schema: schema)
        }
        return restored
    }

    /// - Parameter madeAnew: the tables this step made: a link into one of them goes back to the
    ///   row that is what it pointed at (``LinkTarget``), not to the number it had.
    private func restoreValues(_ restore: PairRestore, of table: String, _ column: String, into target: Column, of targetTable: Table,
                               madeAnew: Set<String>) throws -> Int {
        var value: SQL = "a.value\(target.type.cast)"
        var conditions: [SQL] = [entryIs("a", restore.key, table, column), "NOT a.compares", ArchiveRowKey.rowIs("t", of: targetTable, entry: "a")]
        var from: SQL = "\(archiveTable) AS a"
        var byTarget = false
        if let id = try LinkTarget.restoredID(column: column, of: table, entrySchema: restore.entrySchema, toEnd: restore.toEnd, into: target,
                                              of: targetTable, endSchema: restore.endSchema, madeAnew: madeAnew,
                                              fingerprint: jsonObjectText) {
            // Found once per entry; an entry whose target no row is now stays in the archive.
            from.append(" CROSS JOIN LATERAL (SELECT \(id)\(target.type.cast) AS id) AS link")
            value = "link.id"
            byTarget = true
            conditions.append("(a.value IS NULL OR link.id IS NOT NULL)")
        }
        // A link into a table keyed otherwise than by an integer id: only to the row that is still what it pointed at.
        if let same = LinkTarget.sameKeyedTarget(column: column, of: table, entrySchema: restore.entrySchema, toEnd: restore.toEnd,
                                                 into: target, of: targetTable, endSchema: restore.endSchema) {
            conditions.append(same)
        }
        conditions += referenceGuards(targetTable, [target.name: value])
        // Used entries go; the others (the app's change won, the row is gone) stay, superseded.
        let sql: SQL = "WITH restored AS (UPDATE \(table: targetTable.name) AS t SET \(id: target.name) = \(value) "
            + "FROM \(from) WHERE \(conditions, joinedBy: " AND ") RETURNING a.ctid AS entry), "
            + "used AS (DELETE FROM \(archiveTable) WHERE ctid = ANY (ARRAY(SELECT r.entry FROM restored AS r)) RETURNING 1), "
            + "kept AS (UPDATE \(archiveTable) AS a SET superseded = true WHERE \(entryIs("a", restore.key, table, column)) "
            + "AND NOT a.ctid = ANY (ARRAY(SELECT r.entry FROM restored AS r)) RETURNING 1) "
            + "SELECT (SELECT pg_catalog.count(*) FROM used), (SELECT pg_catalog.count(*) FROM kept)"
        let superseded = supersededCount
        let used = try usedAndSuperseded(sql)
        if byTarget { linksRestoredByTarget += used }
        let isLink = restore.entrySchema.table(named: table).flatMap { LinkTarget.reference(by: column, of: $0, in: restore.entrySchema) } != nil
        findings.add(ArchiveFinding(kind: isLink ? .linksNotRestored : .valuesSuperseded, table: table, column: column, rows: supersededCount - superseded,
                                    in: restore.entrySchema))
        return used
    }

    /// Runs a restore that returns how many entries it used and how many it marked superseded;
    /// notes the latter, returns the former.
    private func usedAndSuperseded(_ sql: SQL) throws -> Int {
        guard let row = try connection.execute(sql, schema: schema).first else { return 0 }
        supersededCount += Int(try row.decode(Int64.self, at: 1))
        return Int(try row.decode(Int64.self, at: 0))
    }

    /// - Parameter leavingTheRest: leave the entries it does not use as they are (for
    ///   ``restoreRowsNoMappingMade``), rather than mark them superseded.
    func restoreRows(_ restore: PairRestore, of table: String, into target: Table, leavingTheRest: Bool) throws -> Int {
        let qualified: SQL = "\(table: target.name)"
        // Each target column and its value from the archived row, by the key it has there (a
        // jsonb value is kept as its text); columns without a key get their default.
        let members = target.columns.compactMap { column -> (column: String, value: SQL)? in
            restore.toEnd.sourceColumn(becoming: column.name, of: table).map { key in
                (column.name, "(a.value::jsonb ->> \(literal: key))\(column.type.cast)")
            }
        }
        let values = Dictionary(uniqueKeysWithValues: members.map { ($0.column, $0.value) })
        // (Rows keyed otherwise than by an integer id are told by their values, as rows without an id.)
        let hasID = values["id"] != nil && ArchiveRowKey(target) == nil
        var conditions: [SQL] = [entryIs("a", restore.key, table, "")]
        if let id = values["id"] { conditions.append("NOT EXISTS (SELECT 1 FROM \(qualified) AS t WHERE t.id = \(id))") }
        // A row may refer to another row restored by the same statement (a self-reference).
        let restoredIDs = values["id"].map { id -> SQL in
            "(SELECT \(id) FROM \(archiveTable) AS a WHERE \(entryIs("a", restore.key, table, "")))"
        }
        conditions += referenceGuards(target, values, alsoRestored: restoredIDs)
        // Citus refuses the STABLE `jsonb_build_object` over the entries' columns in a DELETE or
        // an UPDATE (0A000): there a row keyed otherwise than by an id (a join table's pair) is
        // told by its key, each column against the entry's value of it.
        let key = try connection.capabilities.buildsJSONOfColumnsInUpdates ? nil
            : ArchiveRowKey(target).flatMap { key in key.columns.allSatisfy { values[$0.name] != nil } ? key.columns.map(\.name) : nil }
        let returning: SQL = hasID ? "id" : key.map { "\(ids: $0)" } ?? "pg_catalog.to_jsonb(\(qualified).*) AS row_value"
        let used: SQL = hasID ? "a.row_id = r.id"
            : key.map { "\($0.map { "r.\(id: $0) = \(values[$0]!)" as SQL }, joinedBy: " AND ")" }
            ?? "r.row_value @> pg_catalog.jsonb_build_object(\(members.map { "\(literal: $0.column), \($0.value)" as SQL }, joinedBy: ", "))"
        let sql: SQL = "WITH restored AS (INSERT INTO \(qualified) (\(ids: members.map(\.column)))\(target.overridingSystemValue) SELECT \(members.map(\.value), joinedBy: ", ") "
            + "FROM \(archiveTable) AS a WHERE \(conditions, joinedBy: " AND ") ON CONFLICT DO NOTHING RETURNING \(returning)), "
            + "used AS (DELETE FROM \(archiveTable) AS a USING restored AS r WHERE \(entryIs("a", restore.key, table, "")) AND \(used) RETURNING 1), "
            + "kept AS (UPDATE \(archiveTable) AS a SET superseded = true WHERE \(entryIs("a", restore.key, table, "")) AND \((leavingTheRest ? "false" : "true") as SQL) "
            + "AND NOT EXISTS (SELECT FROM restored AS r WHERE \(used)) RETURNING 1) "
            + "SELECT (SELECT pg_catalog.count(*) FROM used), (SELECT pg_catalog.count(*) FROM kept)"
        let count = try usedAndSuperseded(sql)
        if count > 0, target.columns.contains(where: \.isIdentity) {
            for statement in SchemaOperation.resetIdentity(table: target.name).statements { try connection.execute(statement, schema: schema) }
        }
        return count
    }

    /// The column name of the entry that keeps a dropped table's identity's last value (row id 0).
    static let identityColumn = "#identity"

    /// Moves the identity of `target` (made again by this step) past the last value it had when
    /// the way up dropped it: ids the app used then, and deleted, are not given again. Never below
    /// the sequence's own minimum: Citus gives a distributed table's identity a range per node
    /// (from the node's group id × 2^48), and a last value archived with nothing drawn is one below
    /// it; the next value is then the minimum itself (`setval(…, min, false)`).
    private func restoreIdentity(_ restore: PairRestore, of table: String, into target: String) throws {
        try connection.execute("SELECT pg_catalog.setval(q.seqrelid, GREATEST(v.last, q.seqmin), v.last >= q.seqmin) "
            + "FROM (SELECT GREATEST(a.value::bigint, (SELECT pg_catalog.max(t.id) FROM \(table: target) AS t)) AS last "
            + "FROM \(archiveTable) AS a WHERE \(entryIs("a", restore.key, table, Self.identityColumn)) AND a.value::bigint > 0) AS v "
            + "JOIN pg_catalog.pg_sequence AS q ON q.seqrelid = pg_catalog.pg_get_serial_sequence(\(qualifiedNameLiteral: target), 'id')::pg_catalog.regclass",
            schema: schema)
    }

    /// For each foreign key among `values` (column → SQL of the value to write): the row it
    /// names exists, so a restore never breaks a reference the app removed since.
    /// - Parameter alsoRestored: for whole rows, the ids of the rows restored with them, which a
    ///   self-reference may name.
    func referenceGuards(_ table: Table, _ values: [String: SQL], alsoRestored: SQL? = nil) -> [SQL] {
        table.foreignKeys.compactMap { key -> SQL? in
            guard key.columns.count == 1, let value = values[key.columns[0]], key.referencedColumns.count == 1 else { return nil }
            let sameBatch: SQL = alsoRestored.map { key.referencedTable == table.name ? " OR \(value) IN \($0)" : "" } ?? ""
            return "(\(value) IS NULL OR EXISTS (SELECT 1 FROM \(table: key.referencedTable) AS ref "
                + "WHERE ref.\(id: key.referencedColumns[0]) = \(value))\(sameBatch))"
        }
    }

    /// Tables ordered so that a table comes after the tables its foreign keys refer to.
    static func dependencyOrder(_ schema: RelationalSchema) -> [String] {
        var ordered: [String] = []
        var visiting: Set<String> = []
        func visit(_ name: String) {
            guard !ordered.contains(name), !visiting.contains(name), let table = schema.table(named: name) else { return }
            visiting.insert(name)
            for key in table.foreignKeys where key.referencedTable != name { visit(key.referencedTable) }
            ordered.append(name)
        }
        for table in schema.tables { visit(table.name) }
        return ordered
    }
}
