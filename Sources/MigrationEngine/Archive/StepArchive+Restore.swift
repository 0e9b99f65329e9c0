import EntityModel
import LibPQ

extension StepArchive {
    /// After the step's normal work, when it is the reverse of a step that archived values:
    /// puts them back, set-based (one statement per table and column), and removes the entries
    /// it used. Entries it cannot use stay until pruned.
    ///
    /// - Whole rows (of a table or entity the up step removed) go back into tables this step
    ///   recreated rather than filled by a mapping, where no row has their id yet and the rows
    ///   they refer to exist.
    /// - Values go back only into rows that still exist and, where the up step left a value in
    ///   the column, still hold it (compare-and-restore): a value the app changed since wins.
    ///   Rows the app created since have no entries and keep the step's normal result.
    ///
    /// - Returns: the number of values and rows restored.
    @discardableResult
    func restore() throws -> Int {
        guard try presence.mayHoldEntries(from: to, to: from, schema: schema, on: connection) else { return 0 }
        let keys = try connection.execute(
            "SELECT DISTINCT table_name, column_name FROM \(archiveTable) WHERE step_from = $1 AND step_to = $2", [to, from]
        ).map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) }
        guard !keys.isEmpty else { return 0 }
        // The archive was written in this transaction or recently: without statistics the planner
        // may join it with a quadratic nested loop (seen on the benchmark: 250 s for 33,000 values).
        // Best effort: a failure (a cluster that refuses ANALYZE here) only costs the statistics.
        _ = try? connection.savepoint { _ = try $0.execute("ANALYZE \(archiveTable)") }
        let filled = Set(names.mappingFilledTables)
        var restored = 0
        // Rows first, parents before children, then values (which may refer to restored rows).
        let order = Dictionary(uniqueKeysWithValues: Self.dependencyOrder(destinationSchema).enumerated().map { ($1, $0) })
        for (table, _) in keys.filter({ $0.1.isEmpty }).sorted(by: { (order[$0.0] ?? .max) < (order[$1.0] ?? .max) }) {
            guard let definition = destinationSchema.table(named: table), !filled.contains(table) else { continue }
            restored += try restoreRows(of: definition)
        }
        for (table, column) in keys where !column.isEmpty {
            guard let definition = destinationSchema.table(named: table), let target = definition.column(named: column) else { continue }
            restored += try restoreValues(of: target, in: definition)
        }
        return restored
    }

    private var reverseKey: String { "a.step_from = $1 AND a.step_to = $2 AND a.table_name = $3 AND a.column_name = $4" }

    private func restoreValues(of column: Column, in table: Table) throws -> Int {
        let q = connection
        let target = "t." + q.quoteIdentifier(column.name)
        let value = "a.value::\(column.type.rawValue)"
        var conditions = ["t.id = a.row_id", "(NOT a.compares OR \(target)::text IS NOT DISTINCT FROM a.left_value)"]
        conditions += referenceGuards(table, [column.name: value])
        let sql = "WITH restored AS (UPDATE \(q.qualified(schema, table.name)) AS t SET \(q.quoteIdentifier(column.name)) = \(value) "
            + "FROM \(archiveTable) AS a WHERE \(reverseKey) AND \(conditions.joined(separator: " AND ")) RETURNING a.ctid AS entry) "
            + "DELETE FROM \(archiveTable) WHERE ctid = ANY (ARRAY(SELECT r.entry FROM restored AS r))"
        return try connection.execute(sql, [to, from, table.name, column.name]).affectedRows
    }

    private func restoreRows(of table: Table) throws -> Int {
        let q = connection
        let qualified = q.qualified(schema, table.name)
        let hasID = table.column(named: "id") != nil
        var conditions: [String] = []
        if hasID { conditions.append("NOT EXISTS (SELECT 1 FROM \(qualified) AS t WHERE t.id = r.id)") }
        conditions += referenceGuards(table, Dictionary(uniqueKeysWithValues: table.columns.map { ($0.name, "r." + q.quoteIdentifier($0.name)) }))
        let returning = hasID ? "id" : "pg_catalog.to_jsonb(\(qualified).*)::text AS row_value"
        let used = hasID ? "a.row_id = r.id" : "a.value::jsonb = r.row_value::jsonb"
        let sql = "WITH restored AS (INSERT INTO \(qualified) SELECT r.* FROM \(archiveTable) AS a "
            + "CROSS JOIN LATERAL pg_catalog.jsonb_populate_record(NULL::\(qualified), a.value::jsonb) AS r "
            + "WHERE \(reverseKey)\(conditions.isEmpty ? "" : " AND " + conditions.joined(separator: " AND ")) ON CONFLICT DO NOTHING RETURNING \(returning)) "
            + "DELETE FROM \(archiveTable) AS a USING restored AS r WHERE \(reverseKey) AND \(used)"
        let count = try connection.execute(sql, [to, from, table.name, ""]).affectedRows
        if count > 0, table.columns.contains(where: \.isIdentity) {
            for statement in SchemaOperation.resetIdentity(table: table.name).sql(inSchema: schema, quoting: connection) { try connection.execute(statement) }
        }
        return count
    }

    /// For each foreign key among `values` (column → SQL of the value to write): the row it
    /// names exists, so a restore never breaks a reference the app removed since.
    private func referenceGuards(_ table: Table, _ values: [String: String]) -> [String] {
        table.foreignKeys.compactMap { key in
            guard key.columns.count == 1, let value = values[key.columns[0]], key.referencedColumns.count == 1 else { return nil }
            return "(\(value) IS NULL OR EXISTS (SELECT 1 FROM \(connection.qualified(schema, key.referencedTable)) AS ref "
                + "WHERE ref.\(connection.quoteIdentifier(key.referencedColumns[0])) = \(value)))"
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
