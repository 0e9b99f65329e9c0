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
    /// 2. every archived row no made row matches comes back with its own id (a row whose value is
    ///    NULL, which a `distinct:` mapping does not make; a row no source row names; one whose
    ///    source rows the app changed or deleted since), where the rows it links to exist;
    /// 3. what is not back (no row has its id and values) stays in the archive, superseded.
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
        let moves = try connection.execute(renumbering(into: target, archivedID: archivedID, made: made, archived: archived, entry: entryIs("a", restore.key, table, "")),
                                           schema: schema)
        let moved = Int(try moves.first?.decode(Int64.self, at: 0) ?? 0)
        if moved > 0 { try connection.execute(settling(target), schema: schema) }
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
    private func renumbering(into target: Table, archivedID: SQL, made: SQL, archived: SQL, entry: SQL) -> SQL {
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
            return "tm_moved_\(raw: String(index)) AS (\(update) RETURNING 1)"
        }
        return "WITH tm_made AS (SELECT t.id, \(made) AS fp FROM \(table: target.name) AS t), "
            + "tm_archived AS (SELECT \(archivedID) AS id, \(archived) AS fp FROM \(archiveTable) AS a WHERE \(entry)), "
            // A made row with an archived row's id and values is that row.
            + "tm_same AS (SELECT m.id FROM tm_made AS m JOIN tm_archived AS r ON r.id = m.id AND r.fp = m.fp), "
            + "tm_m AS (SELECT m.id, m.fp, pg_catalog.row_number() OVER (PARTITION BY m.fp ORDER BY m.id) AS n FROM tm_made AS m "
            + "WHERE NOT EXISTS (SELECT FROM tm_same AS s WHERE s.id = m.id)), "
            + "tm_r AS (SELECT r.id, r.fp, pg_catalog.row_number() OVER (PARTITION BY r.fp ORDER BY r.id) AS n FROM tm_archived AS r "
            + "WHERE NOT EXISTS (SELECT FROM tm_same AS s WHERE s.id = r.id)), "
            + "tm_matched AS (SELECT m.id AS old, r.id AS new FROM tm_m AS m JOIN tm_r AS r ON r.fp = m.fp AND r.n = m.n), "
            + "tm_top AS (SELECT GREATEST((SELECT pg_catalog.max(id) FROM tm_made), (SELECT pg_catalog.max(id) FROM tm_archived)) AS top), "
            + "tm_moves AS (SELECT old, new FROM ("
            + "SELECT old, new FROM tm_matched WHERE old <> new UNION ALL "
            // A made row no archived row matches, on an archived row's id: past every id.
            + "SELECT m.id, (SELECT top FROM tm_top) + pg_catalog.row_number() OVER (ORDER BY m.id) FROM tm_m AS m "
            + "WHERE NOT EXISTS (SELECT FROM tm_matched AS x WHERE x.old = m.id) AND EXISTS (SELECT FROM tm_archived AS r WHERE r.id = m.id)) AS tm_all "
            + "WHERE NOT EXISTS (SELECT FROM tm_made WHERE id <= 0) AND NOT EXISTS (SELECT FROM tm_archived WHERE id <= 0)), "
            + "\(moves, joinedBy: ", ") SELECT pg_catalog.count(*) FROM tm_moves"
    }

    /// The second statement: the rows and links ``renumbering(into:archivedID:made:archived:entry:)``
    /// set to the negative of their new id take it.
    private func settling(_ target: Table) -> SQL {
        let updates: [SQL] = idColumns(referring: target).enumerated().map { index, table in
            let sets: [SQL] = table.columns.map { "\(id: $0) = CASE WHEN x.\(id: $0) < 0 THEN -x.\(id: $0) ELSE x.\(id: $0) END" }
            let negative: [SQL] = table.columns.map { "x.\(id: $0) < 0" }
            return "tm_settled_\(raw: String(index)) AS (UPDATE \(table: table.table) AS x SET \(sets, joinedBy: ", ") WHERE \(negative, joinedBy: " OR ") RETURNING 1)"
        }
        return "WITH \(updates, joinedBy: ", ") SELECT 1"
    }
}
