import EntityModel
import LibPQ
import TypedSQL

extension StepArchive {
    /// Whole rows archived from a table this step's mapping or policy fills anew (Recipes' Ingredient
    /// and UnitOfMeasure, made again from the recipe ingredients; a `distinct:` mapping's Status rows)
    /// that no source row made again: an Ingredient no recipe used yet, a unit only it used (rows
    /// no archived link named: one that was named came from its source rows). The
    /// rows the mapping made stand (an archived row whose identifying values one of them has, as
    /// ``LinkTarget`` tells rows apart, is that row made again); the others go back with new ids,
    /// their links into another such table translated to the row that is what they pointed at.
    /// Their entries are then consumed with the pair's others. Before, they were removed unused:
    /// the rows were lost, silently.
    ///
    /// - Parameters:
    ///   - table: the entry's table name (the pair's source version's).
    ///   - target: the table the step filled, as the step's destination has it.
    ///   - entryTables: for each table of the destination, the entry table whose whole rows it holds.
    ///   - filledByMapping: whether a mapping filled the table (its linked rows' entries are then
    ///     consumed with the pair), rather than a policy or the archive (``restoreRows`` gave back
    ///     what it could by id; what is left and no row is now stays, superseded, as before).
    /// - Returns: the number of rows given back.
    func restoreRowsNoMappingMade(_ restore: PairRestore, of table: String, into target: Table, entryTables: [String: String],
                                  filledByMapping: Bool) throws -> Int {
        let identifying = LinkTarget.identifyingColumns(of: target)
        // Only rows nothing linked to when they were archived: a row an archived link named was made
        // from its source rows, and comes again from them, or goes with them (the app deleted them).
        let linking = (restorable[restore.key] ?? []).filter { entry in
            guard !entry.column.isEmpty, let entryTable = restore.entrySchema.table(named: entry.table) else { return false }
            return LinkTarget.referencedTable(by: entry.column, of: entryTable, in: restore.entrySchema)?.name == table
        }
        let entryID: SQL = restore.toEnd.sourceColumn(becoming: "id", of: table).map { "(a.value::jsonb ->> \(literal: $0))" } ?? "NULL"
        let unlinked: SQL = linking.isEmpty ? "true"
            : "NOT EXISTS (SELECT 1 FROM \(archiveTable) AS l WHERE (\(linking.map { entryIs("l", restore.key, $0.table, $0.column) }, joinedBy: ") OR (")) "
                + "AND l.value = \(entryID))"
        // A row with nothing but an id and links cannot be told from the rows the mapping made: its
        // entry stays, superseded.
        let keeping: SQL = filledByMapping ? unlinked : "true"
        /// Marks the entries kept (and, where given, still no row now) superseded, and counts them.
        func supersedeKept(where condition: SQL = "true") throws {
            let kept = try connection.execute("WITH kept AS (UPDATE \(archiveTable) AS a SET superseded = true WHERE \(entryIs("a", restore.key, table, "")) "
                                              + "AND \(keeping) AND \(condition) RETURNING 1) SELECT pg_catalog.count(*) FROM kept", schema: schema)
            supersededCount += Int(try kept.first?.decode(Int64.self, at: 0) ?? 0)
        }
        guard !identifying.isEmpty else { try supersedeKept(); return 0 }
        func archived(_ column: Column, of entry: SQL, in table: String) -> SQL? {
            restore.toEnd.sourceColumn(becoming: column.name, of: table).map { "(\(entry).value::jsonb ->> \(literal: $0))\(column.type.cast)" }
        }
        let links = Dictionary(target.foreignKeys.filter { $0.columns.count == 1 && $0.referencedColumns == ["id"] }.map { ($0.columns[0], $0.referencedTable) },
                               uniquingKeysWith: { first, _ in first })
        var members: [(column: String, value: SQL)] = []
        for column in target.columns where column.name != "id" {
            guard var value = archived(column, of: "a", in: table) else { continue }
            if let referenced = links[column.name], let parentEntries = entryTables[referenced], let parent = restore.endSchema.table(named: referenced),
               let parentID = restore.toEnd.sourceColumn(becoming: "id", of: parentEntries) {
                // The archived parent row this link named, then the row of the parent table that is it now.
                let same = LinkTarget.identifyingColumns(of: parent).compactMap { name -> SQL? in
                    parent.column(named: name).flatMap { archived($0, of: "p", in: parentEntries) }.map { "r.\(id: name)::text IS NOT DISTINCT FROM \($0)::text" }
                }
                guard !same.isEmpty else { continue }
                // (A parent row whose entry is gone went back by its own id: the link keeps its number.)
                let entry: SQL = "\(entryIs("p", restore.key, parentEntries, "")) AND (p.value::jsonb ->> \(literal: parentID))::bigint = \(value)"
                value = "(CASE WHEN \(value) IS NULL THEN NULL WHEN NOT EXISTS (SELECT 1 FROM \(archiveTable) AS p WHERE \(entry)) THEN \(value) ELSE "
                    + "(SELECT r.id FROM \(archiveTable) AS p JOIN \(table: referenced) AS r ON \(same, joinedBy: " AND ") WHERE \(entry) ORDER BY r.id LIMIT 1) END)"
            }
            members.append((column.name, value))
        }
        let values = Dictionary(uniqueKeysWithValues: members.map { ($0.column, $0.value) })
        // (As text, as ``LinkTarget`` compares them: json has no equality.)
        let madeAgain = identifying.compactMap { name -> SQL? in values[name].map { "t.\(id: name)::text IS NOT DISTINCT FROM \($0)::text" } }
        guard madeAgain.count == identifying.count else { try supersedeKept(); return 0 }
        let notMadeAgain: SQL = "NOT EXISTS (SELECT 1 FROM \(table: target.name) AS t WHERE \(madeAgain, joinedBy: " AND "))"
        let conditions: [SQL] = [entryIs("a", restore.key, table, ""), unlinked, notMadeAgain] + referenceGuards(target, values)
        let inserted = try connection.execute(
            "WITH restored AS (INSERT INTO \(table: target.name) (\(ids: members.map(\.column)))\(target.overridingSystemValue) SELECT \(members.map(\.value), joinedBy: ", ") "
                + "FROM \(archiveTable) AS a WHERE \(conditions, joinedBy: " AND ") RETURNING 1) SELECT pg_catalog.count(*) FROM restored",
            schema: schema)
        // What no row is now (its parent row gone since, say) stays in the archive, superseded.
        try supersedeKept(where: notMadeAgain)
        return Int(try inserted.first?.decode(Int64.self, at: 0) ?? 0)
    }
}
