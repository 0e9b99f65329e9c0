import EntityModel
import LibPQ
import TypedSQL

/// A catch-up round's work for the plan's distinct mappings (see ``OnlineDistinct``): the
/// affected keys and their first rows, the delta's keys matched to the shadow's, and the
/// statements that merge the rows made per key.
extension CatchUpRound {
    /// The ids of the changed rows of `table` (a distinct mapping's source is keyed by an integer
    /// id: docs/Archive.md, "Rows keyed by anything").
    func changedIDs(of table: String) -> SQL {
        "SELECT \(CapturedKey.element(0, as: .bigint, of: table)) FROM \(changed) AS c WHERE c.relation = \(literal: table)"
    }

    /// Before the delta is filled: each distinct mapping's affected keys (those its changed rows
    /// had and have) with their first rows before and now; and every row of a key whose first row
    /// changed, or is changed, joins the change set (each row's fate is decided against the first).
    ///
    /// In id order a key's first row now is the smaller of its first row before, when that row did
    /// not change, and the changed rows that have the key now; only a key whose first row changed
    /// needs its other rows read.
    ///
    /// The rows one distinct mapping adds are changed rows for the others (two keys of one source
    /// row: an Ingredient's name and a UnitOfMeasure's unit): their keys there are affected too,
    /// and their first rows join the delta, so the groups are worked out again until none adds a
    /// row. Without that, a row migrated again for its unit would be compared, in the delta, with
    /// no first row of its name.
    func addDistinctGroups() throws {
        guard !plan.distinct.isEmpty else { return }
        // (One distinct mapping's rows added are of keys already affected: one pass is enough.)
        while try addDistinctGroupsOnce() > 0, plan.distinct.count > 1 {}
    }

    /// One pass of ``addDistinctGroups()`` over every distinct mapping; returns the rows it added.
    private func addDistinctGroupsOnce() throws -> Int {
        var added = 0
        for distinct in plan.distinct {
            let rows = "\(shadowTable(distinct.rowsTable))" as SQL, keys = "\(shadowTable(distinct.keysTable))" as SQL
            let affected: SQL = "\(work(distinct.affectedTable))", now: SQL = "\(work(distinct.liveKeysTable))"
            let changedIDs = changedIDs(of: distinct.sourceTable)
            added += try connection.pipeline([
                "DROP TABLE IF EXISTS \(now)",
                "DROP TABLE IF EXISTS \(affected)",
                "\(createWork(distinct.liveKeysTable)) AS \(inLive(distinct.sourceKeys(ids: changedIDs)))",
                "ANALYZE \(now)",
                "\(createWork(distinct.affectedTable)) AS SELECT a.key, k.first AS old_first, NULL::pg_catalog.int8 AS first "
                    + "FROM (SELECT r.key FROM \(rows) AS r WHERE r.source_id IN (\(changedIDs)) UNION SELECT l.key FROM \(now) AS l) AS a "
                    + "LEFT JOIN \(keys) AS k ON k.key = a.key",
                "ANALYZE \(affected)",
                "UPDATE \(affected) AS a SET first = LEAST(CASE WHEN a.old_first NOT IN (\(changedIDs)) THEN a.old_first END, "
                    + "(SELECT pg_catalog.min(l.source_id) FROM \(now) AS l WHERE l.key = a.key))",
                "UPDATE \(affected) AS a SET first = f.first FROM (SELECT x.key, pg_catalog.min(x.source_id) AS first FROM ("
                    + "SELECT r.key, r.source_id FROM \(rows) AS r WHERE EXISTS (SELECT FROM \(affected) AS b WHERE \(distinct.rowsHaveKey("r", "b.key")) AND b.old_first IN (\(changedIDs))) "
                    + "AND r.source_id NOT IN (\(changedIDs)) UNION ALL SELECT l.key, l.source_id FROM \(now) AS l) AS x GROUP BY x.key) AS f "
                    + "WHERE f.key = a.key AND a.old_first IN (\(changedIDs))",
                "INSERT INTO \(changed) (relation, key, direct) SELECT \(literal: distinct.sourceTable), ARRAY[r.source_id::pg_catalog.text], false "
                    + "FROM \(rows) AS r JOIN \(affected) AS a ON \(distinct.rowsHaveKey("r", "a.key")) "
                    + "WHERE a.first IS DISTINCT FROM a.old_first OR a.old_first IN (\(changedIDs)) ON CONFLICT DO NOTHING",
            ], schema: shadow).last?.affectedRows ?? 0
        }
        return added
    }

    /// Each affected key's first row now, for the delta (where it is not changed itself).
    func distinctFirstRows() -> [SQL] {
        plan.distinct.map { distinct in
            "INSERT INTO \(needed) (relation, key) SELECT \(literal: distinct.sourceTable), ARRAY[a.first::pg_catalog.text] "
                + "FROM \(work(distinct.affectedTable)) AS a WHERE a.first IS NOT NULL ON CONFLICT DO NOTHING"
        }
    }

    /// Once the delta is filled, before its run: the id the run gives each of its keys' rows, and
    /// the id that row has, or gets, in the shadow (the next ids past the shadow's for new keys).
    func matchDistinctKeys() throws {
        for distinct in plan.distinct {
            let ids: SQL = "\(work(distinct.idsTable))"
            try connection.pipeline([
                "\(createWork(distinct.idsTable)) AS SELECT d.key, d.id AS delta_id, k.id AS shadow_id "
                    + "FROM (\(inDelta(distinct.keysQuery))) AS d LEFT JOIN \(shadowTable(distinct.keysTable)) AS k ON k.key = d.key",
                "UPDATE \(ids) AS m SET shadow_id = n.id FROM (SELECT i.delta_id, "
                    + "(SELECT coalesce(pg_catalog.max(t.id), 0) FROM \(shadowTable(distinct.destinationTable)) AS t) "
                    + "+ pg_catalog.row_number() OVER (ORDER BY i.delta_id) AS id FROM \(ids) AS i WHERE i.shadow_id IS NULL) AS n WHERE m.delta_id = n.delta_id",
                "ANALYZE \(ids)",
            ], schema: shadow)
        }
    }

    /// The distinct mapping that fills `table`, if one does.
    func distinct(filling table: String) -> OnlineDistinct? {
        plan.distinct.first { $0.destinationTable == table }
    }

    /// A delta row's value of `column` as the shadow must hold it: a key to a row made per key is
    /// translated from the delta's id to the shadow's.
    func mergedValue(of column: String, in table: Table) -> SQL {
        guard let key = table.foreignKeys.first(where: { $0.columns == [column] }), let target = distinct(filling: key.referencedTable) else {
            return table.column(named: column).map { ShadowTables.carried("x", $0) } ?? "x.\(id: column)"
        }
        return "(SELECT m.shadow_id FROM \(work(target.idsTable)) AS m WHERE m.delta_id = x.\(id: column))"
    }

    /// After the delta's archive entries of `rows` were copied into the shadow's: their
    /// `left_value` as the shadow must hold it. Where the step dropped an archived column,
    /// `left_value` is a JSON object of the columns derived from it (`{"status_id": "6"}`, see
    /// ``StepArchive``), which the way down compares with the row's values then; a link to a row
    /// made per key holds the delta's id, translated here to the shadow's, as the row's own link is
    /// (``mergedValue(of:in:)``). Without this, the way down would find the link changed and keep
    /// the app's value: the archived spelling would be lost.
    ///
    /// One `UPDATE … FROM` the round's ids per link column, rather than a subquery in the copy's
    /// select list: Citus deparses an `INSERT … SELECT` whose select list passes a correlated
    /// subquery to a function (`jsonb_set`, `COALESCE`) into invalid SQL for the worker (42601,
    /// "syntax error at or near NOT", a filter `( IS NOT NULL)` with no column).
    func translatedLeftValues(of rows: SQL) -> [SQL] {
        archivedLinks().sorted { $0.key < $1.key }.compactMap { column, target in
            // Only the entries that hold links are parsed (a surviving column's left_value is its
            // own text, whatever its first byte, ``entriesHoldingLink(_:)``).
            guard let entries = entriesHoldingLink(column) else { return nil }
            return "UPDATE \(shadowTable(TenantArchive.tableName)) AS a SET left_value = pg_catalog.jsonb_set(a.left_value::pg_catalog.jsonb, "
                + "ARRAY[\(literal: column)], \(Self.jsonString(ofID: "m.shadow_id")))::pg_catalog.text FROM \(work(target.idsTable)) AS m "
                + "WHERE \(rows) AND \(entries) AND m.delta_id::pg_catalog.text = \(archivedLink(column, in: entries))"
        }
    }

    /// An id as a JSON string (`"12"`), as `to_jsonb(id::text)` gives it but by an immutable
    /// cast: Citus refuses a STABLE function (`to_jsonb`) over columns in an UPDATE (0A000).
    static func jsonString(ofID id: SQL) -> SQL {
        "('\"' OPERATOR(pg_catalog.||) \(id)::pg_catalog.text OPERATOR(pg_catalog.||) '\"')::pg_catalog.jsonb"
    }

    /// The columns an archive entry's `left_value` object may hold a link to a row made per key
    /// in, and that key's distinct mapping: a destination foreign key's column to its table, where
    /// no other such column of that name links elsewhere.
    func archivedLinks() -> [String: OnlineDistinct] {
        var links: [String: OnlineDistinct] = [:]
        var ambiguous: Set<String> = []
        for table in destination.tables {
            for key in table.foreignKeys where key.columns.count == 1 {
                guard let target = distinct(filling: key.referencedTable) else { continue }
                let column = key.columns[0]
                if let known = links[column], known.idsTable != target.idsTable { ambiguous.insert(column) }
                links[column] = target
            }
        }
        return links.filter { !ambiguous.contains($0.key) }
    }

    /// The `left_value` columns that link to `distinct`'s rows (``archivedLinks()``).
    func archivedLinks(to distinct: OnlineDistinct) -> [String] {
        archivedLinks().filter { $0.value.index == distinct.index }.map(\.key).sorted()
    }

    /// The rows made for the affected keys, inserted or updated in the shadow under its ids,
    /// parents first.
    func upsertDistinctRows(order: [String]) -> [SQL] {
        order.compactMap { name in
            guard let distinct = distinct(filling: name), let table = destination.table(named: name) else { return nil }
            let columns = table.columns.map(\.name)
            let values: [SQL] = columns.map { $0 == "id" ? "m.shadow_id" : mergedValue(of: $0, in: table) }
            let updates: [SQL] = columns.filter { $0 != "id" }.map { "\(id: $0) = EXCLUDED.\(id: $0)" }
            return "INSERT INTO \(shadowTable(name)) (\(ids: columns))\(table.overridingSystemValue) SELECT \(values, joinedBy: ", ") FROM \(deltaTable(name)) AS x "
                + "JOIN \(work(distinct.idsTable)) AS m ON m.delta_id = x.id "
                + "WHERE m.key IN (SELECT a.key FROM \(work(distinct.affectedTable)) AS a WHERE a.first IS NOT NULL) "
                + "ON CONFLICT (id) \(updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET \(updates, joinedBy: ", ")")"
        }
    }

    /// After every other row is merged (nothing refers to them any more): the rows of keys no
    /// source row has now, children first; then the shadow's record of keys and rows.
    func finishDistinctRows(order: [String]) -> [SQL] {
        var statements: [SQL] = order.reversed().compactMap { name in
            guard let distinct = distinct(filling: name) else { return nil }
            return "DELETE FROM \(shadowTable(name)) AS t USING \(shadowTable(distinct.keysTable)) AS k, \(work(distinct.affectedTable)) AS a "
                + "WHERE a.first IS NULL AND k.key = a.key AND t.id = k.id"
        }
        for distinct in plan.distinct {
            let keys = "\(shadowTable(distinct.keysTable))" as SQL, rows = "\(shadowTable(distinct.rowsTable))" as SQL
            let affected: SQL = "\(work(distinct.affectedTable))"
            let changedIDs = changedIDs(of: distinct.sourceTable)
            statements += [
                "DELETE FROM \(keys) AS k USING \(affected) AS a WHERE a.key = k.key",
                "INSERT INTO \(keys) (key, first, id) SELECT a.key, a.first, m.shadow_id FROM \(affected) AS a "
                    + "JOIN \(work(distinct.idsTable)) AS m ON m.key = a.key WHERE a.first IS NOT NULL",
                "DELETE FROM \(rows) WHERE source_id IN (\(changedIDs))",
                "INSERT INTO \(rows) (source_id, key) \(inLive(distinct.sourceKeys(ids: changedIDs)))",
                "ANALYZE \(keys)",
            ]
        }
        return statements
    }
}
