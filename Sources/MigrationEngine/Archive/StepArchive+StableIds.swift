import EntityModel
import LibPQ
import TypedSQL

extension StepArchive {
    /// Whole rows archived from a table this step makes anew (a `distinct:` mapping's rows, the
    /// Recipes policies' Ingredient and UnitOfMeasure, rows the app wrote there itself) come back
    /// with the ids they had, so that every link to them, archived or not, names the same row:
    ///
    /// 1. each row the step made whose identifying values (``LinkTarget``: every column but the id
    ///    and links, as text, NULLs equal) an archived row has takes that row's id: first a row and
    ///    an archived row with the same id and values, then, among rows that look alike, the k-th
    ///    smallest id made takes the k-th smallest id archived; a made row no archived row matches
    ///    keeps its id unless an archived row had it, and then takes a new one past every id;
    /// 2. an archived row no made row has the values of, whose source rows (those its archived
    ///    links named that still exist) the app all changed below (their comparison failed), is
    ///    superseded by that change: where they all name one made row no archived row matches, that
    ///    row is it renamed and takes its id; either way it does not come back under its old value
    ///    (kept, superseded, counted);
    /// 3. every other archived row no made row matches comes back with its own id (a row whose
    ///    value is NULL, which a `distinct:` mapping does not make; a row no source row names; one
    ///    whose source rows the app deleted since), where the rows it links to exist;
    /// 4. what is not back (no row has its id and values) stays in the archive, superseded.
    ///
    /// The ids move in two set-based statements (each row first to the negative of its new id,
    /// then to the new id), each updating the links to them in the same statement (foreign keys are
    /// checked at its end); the identity then moves past every id.
    ///
    /// - Returns: the number of rows given back by (2), or nil where the rows cannot be matched
    ///   (no identifying column, one the entry lacks, a key other than an integer id, an identity
    ///   `GENERATED ALWAYS`): the caller gives them back as before.
    func restoreRowsKeepingIds(_ restore: PairRestore, of table: String, into target: Table) throws -> Int? {
        let identifying = LinkTarget.identifyingColumns(of: target)
        guard !identifying.isEmpty, ArchiveRowKey(target) == nil, let idColumn = target.column(named: "id"), idColumn.generation != .always,
              MigrationStep.rowIDTypes.contains(idColumn.type), let idKey = restore.toEnd.sourceColumn(becoming: "id", of: table) else { return nil }
        var archivedValues: [(key: String, value: SQL)] = []
        for name in identifying {
            guard let column = target.column(named: name), let key = restore.toEnd.sourceColumn(becoming: name, of: table) else { return nil }
            archivedValues.append((name, "(a.value::jsonb ->> \(literal: key))\(column.type.cast)::text"))
        }
        let archivedID: SQL = "(a.value::jsonb ->> \(literal: idKey))::bigint"
        let rows: SQL = "\(table: target.name)"
        let made = try jsonObjectText(identifying.map { ($0, "t.\(id: $0)::text") }), archived = try jsonObjectText(archivedValues)
        let named = namingRows(restore, of: table, into: target)
        let moves = try connection.execute(renumbering(into: target, archivedID: archivedID, made: made, archived: archived, entry: entryIs("a", restore.key, table, ""),
                                                       named: named),
                                           schema: schema)
        let moved = Int(try moves.first?.decode(Int64.self, at: 0) ?? 0)
        if moved > 0 { try connection.execute(settling(target), schema: schema) }
        if let named {
            // An archived row whose source rows the app all changed below (renamed): the app's
            // change wins. Not given back under its old value; kept, superseded.
            let away = try connection.execute("WITH away AS (UPDATE \(archiveTable) AS a SET superseded = true WHERE \(entryIs("a", restore.key, table, "")) "
                                              + "AND NOT EXISTS (SELECT FROM \(rows) AS t WHERE t.id = \(archivedID) AND \(made) = \(archived)) "
                                              + "AND \(archivedID) IN (SELECT n.archived FROM (\(named)) AS n GROUP BY n.archived HAVING pg_catalog.bool_and(n.changed)) "
                                              + "RETURNING 1) SELECT pg_catalog.count(*) FROM away",
                                              schema: schema)
            supersededCount += Int(try away.first?.decode(Int64.self, at: 0) ?? 0)
        }
        let inserted = try restoreRows(restore, of: table, into: target, leavingTheRest: true)
        if moved > 0, inserted == 0, idColumn.isIdentity {
            for statement in SchemaOperation.resetIdentity(table: target.name).statements { try connection.execute(statement, schema: schema) }
        }
        let kept = try connection.execute("WITH kept AS (UPDATE \(archiveTable) AS a SET superseded = true WHERE \(entryIs("a", restore.key, table, "")) "
                                          + "AND NOT EXISTS (SELECT FROM \(rows) AS t WHERE t.id = \(archivedID) AND \(made) = \(archived)) RETURNING 1) "
                                          + "SELECT pg_catalog.count(*) FROM kept",
                                          schema: schema)
        supersededCount += Int(try kept.first?.decode(Int64.self, at: 0) ?? 0)
        return inserted
    }

    /// For every source row that still exists and whose archived link (an entry of `restore`)
    /// named a row of `table`: `archived` (the id it named), `made` (the row of `target` it names
    /// now, as the step made it) and `changed` (its comparison failed: the app changed what the row
    /// derives since the way up, ``checkRestorable()``). Nil where no such link is archived (or
    /// its rows are keyed otherwise than by an integer id).
    private func namingRows(_ restore: PairRestore, of table: String, into target: Table) -> SQL? {
        let selects = (restorable[restore.key] ?? []).compactMap { entry -> SQL? in
            guard !entry.column.isEmpty, entry.column != WayBackProof.markerColumn, entry.column != Self.identityColumn,
                  let entryTable = restore.entrySchema.table(named: entry.table),
                  LinkTarget.referencedTable(by: entry.column, of: entryTable, in: restore.entrySchema)?.name == table,
                  let (name, column) = restore.toEnd.column(entry.column, of: entry.table), name != target.name,
                  let linking = restore.endSchema.table(named: name), ArchiveRowKey(linking) == nil, linking.column(named: "id") != nil,
                  LinkTarget.referencedTable(by: column, of: linking, in: restore.endSchema)?.name == target.name else { return nil }
            return "SELECT l.value::bigint AS archived, x.\(id: column)::bigint AS made, l.compares AS changed FROM \(archiveTable) AS l "
                + "JOIN \(table: name) AS x ON x.id = l.row_id WHERE \(entryIs("l", restore.key, entry.table, entry.column)) AND l.value IS NOT NULL"
        }
        return selects.isEmpty ? nil : "\(selects, joinedBy: " UNION ALL ")"
    }

    /// The links to `target`'s id (single-column foreign keys), by table: `target` itself first,
    /// with its id.
    private func idColumns(referring target: Table) -> [(table: String, columns: [String])] {
        let selfLinks = target.foreignKeys.filter { $0.columns.count == 1 && $0.referencedTable == target.name && $0.referencedColumns == ["id"] }
        var tables: [(table: String, columns: [String])] = [(target.name, ["id"] + selfLinks.map { $0.columns[0] })]
        for table in destinationSchema.tables where table.name != target.name {
            let columns = table.foreignKeys.filter { $0.columns.count == 1 && $0.referencedTable == target.name && $0.referencedColumns == ["id"] }.map { $0.columns[0] }
            if !columns.isEmpty { tables.append((table.name, columns)) }
        }
        return tables
    }

    /// The first statement: which made row takes which id (``restoreRowsKeepingIds(_:of:into:)``),
    /// each moved row and every link to it set to the negative of its new id. Moves nothing where
    /// an id is not positive. Returns how many rows it moved.
    ///
    /// - Parameter named: ``namingRows(_:of:into:)``: an archived row no made row has the values
    ///   of, whose source rows the app all changed and all name one made row no archived row has
    ///   the values of, is that row renamed: the made row takes its id (the lowest such archived
    ///   id, where several were renamed alike).
    private func renumbering(into target: Table, archivedID: SQL, made: SQL, archived: SQL, entry: SQL, named: SQL?) -> SQL {
        let moves: [SQL] = idColumns(referring: target).enumerated().map { index, table in
            let columns = table.columns
            let update: SQL
            if columns.count == 1 {
                update = "UPDATE \(table: table.table) AS x SET \(id: columns[0]) = -m.new FROM tm_moves AS m WHERE x.\(id: columns[0]) = m.old"
            } else {
                let sets: [SQL] = columns.map { "\(id: $0) = coalesce((SELECT -m.new FROM tm_moves AS m WHERE m.old = x.\(id: $0)), x.\(id: $0))" }
                let moving: [SQL] = columns.map { "x.\(id: $0) IN (SELECT m.old FROM tm_moves AS m)" }
                update = "UPDATE \(table: table.table) AS x SET \(sets, joinedBy: ", ") WHERE \(moving, joinedBy: " OR ")"
            }
            return "tm_moved_\(int: index) AS (\(update) RETURNING 1)"
        }
        return "WITH tm_made AS (SELECT t.id, \(made) AS fp FROM \(table: target.name) AS t), "
            + "tm_archived AS (SELECT \(archivedID) AS id, \(archived) AS fp FROM \(archiveTable) AS a WHERE \(entry)), "
            + gone(named)
            // A made row with an archived row's id and values is that row (unless the app renamed
            // that row's every source row away: the made row is then another that looks alike).
            + "tm_same AS (SELECT m.id FROM tm_made AS m JOIN tm_archived AS r ON r.id = m.id AND r.fp = m.fp "
            + "WHERE NOT EXISTS (SELECT FROM tm_gone AS g WHERE g.id = r.id)), "
            + "tm_m AS (SELECT m.id, m.fp, pg_catalog.row_number() OVER (PARTITION BY m.fp ORDER BY m.id) AS n FROM tm_made AS m "
            + "WHERE NOT EXISTS (SELECT FROM tm_same AS s WHERE s.id = m.id)), "
            // (Among archived rows that look alike, those the app did not rename away first.)
            + "tm_r AS (SELECT r.id, r.fp, pg_catalog.row_number() OVER (PARTITION BY r.fp ORDER BY EXISTS (SELECT FROM tm_gone AS g WHERE g.id = r.id), r.id) AS n "
            + "FROM tm_archived AS r "
            + "WHERE NOT EXISTS (SELECT FROM tm_same AS s WHERE s.id = r.id)), "
            + "tm_matched AS (SELECT m.id AS old, r.id AS new FROM tm_m AS m JOIN tm_r AS r ON r.fp = m.fp AND r.n = m.n), "
            + renamed(named)
            + "tm_top AS (SELECT GREATEST((SELECT pg_catalog.max(id) FROM tm_made), (SELECT pg_catalog.max(id) FROM tm_archived)) AS top), "
            + "tm_moves AS (SELECT old, new FROM ("
            + "SELECT old, new FROM tm_paired WHERE old <> new UNION ALL "
            // A made row no archived row matches, on an archived row's id: past every id.
            + "SELECT m.id, (SELECT top FROM tm_top) + pg_catalog.row_number() OVER (ORDER BY m.id) FROM tm_m AS m "
            + "WHERE NOT EXISTS (SELECT FROM tm_paired AS x WHERE x.old = m.id) AND EXISTS (SELECT FROM tm_archived AS r WHERE r.id = m.id)) AS tm_all "
            + "WHERE NOT EXISTS (SELECT FROM tm_made WHERE id <= 0) AND NOT EXISTS (SELECT FROM tm_archived WHERE id <= 0)), "
            + "\(moves, joinedBy: ", ") SELECT pg_catalog.count(*) FROM tm_moves"
    }

    /// `tm_named` (``namingRows(_:of:into:)``) and `tm_gone`: the archived rows whose source rows
    /// the app all changed below.
    private func gone(_ named: SQL?) -> SQL {
        guard let named else { return "tm_gone AS (SELECT NULL::bigint AS id WHERE false), " }
        return "tm_named AS (\(named)), "
            + "tm_gone AS (SELECT n.archived AS id FROM tm_named AS n GROUP BY n.archived HAVING pg_catalog.bool_and(n.changed)), "
    }

    /// `tm_renamed` (made rows that take the id of the archived row their source rows named, the
    /// app having renamed them all below) and `tm_paired` (those and `tm_matched`).
    private func renamed(_ named: SQL?) -> SQL {
        guard named != nil else { return "tm_paired AS (SELECT old, new FROM tm_matched), " }
        return "tm_away AS (SELECT n.archived, pg_catalog.min(n.made) AS made FROM tm_named AS n GROUP BY n.archived "
            + "HAVING pg_catalog.bool_and(n.changed) AND pg_catalog.bool_and(n.made IS NOT NULL) AND pg_catalog.count(DISTINCT n.made) = 1), "
            + "tm_renamed AS (SELECT DISTINCT ON (w.made) w.made AS old, w.archived AS new FROM tm_away AS w "
            + "WHERE w.archived IN (SELECT r.id FROM tm_r AS r WHERE NOT EXISTS (SELECT FROM tm_matched AS x WHERE x.new = r.id)) "
            + "AND w.made IN (SELECT m.id FROM tm_m AS m WHERE NOT EXISTS (SELECT FROM tm_matched AS x WHERE x.old = m.id)) ORDER BY w.made, w.archived), "
            + "tm_paired AS (SELECT old, new FROM tm_matched UNION ALL SELECT old, new FROM tm_renamed), "
    }

    /// The second statement: the rows and links ``renumbering(into:archivedID:made:archived:entry:)``
    /// set to the negative of their new id take it.
    private func settling(_ target: Table) -> SQL {
        let updates: [SQL] = idColumns(referring: target).enumerated().map { index, table in
            let sets: [SQL] = table.columns.map { "\(id: $0) = CASE WHEN x.\(id: $0) < 0 THEN -x.\(id: $0) ELSE x.\(id: $0) END" }
            let negative: [SQL] = table.columns.map { "x.\(id: $0) < 0" }
            return "tm_settled_\(int: index) AS (UPDATE \(table: table.table) AS x SET \(sets, joinedBy: ", ") WHERE \(negative, joinedBy: " OR ") RETURNING 1)"
        }
        return "WITH \(updates, joinedBy: ", ") SELECT 1"
    }
}
