import LibPQ

/// Queries the tests use to look at a database, whatever they test.
extension Connection {
    /// The first column of the first row. Test helpers take SQL as text (`unsafeSQL:`): a test's own
    /// statements, never a user's.
    ///
    /// - Throws: ``TestFailure`` when there is no row.
    public func scalar<T: PQDecodable>(_ sql: String, _ parameters: [(any PQEncodable)?] = [], as type: T.Type = T.self) throws -> T {
        guard let row = try execute(unsafeSQL: sql, parameters).first else { throw TestFailure("no row for \(sql)") }
        return try row.decode(T.self, at: 0)
    }

    /// The first column of every row.
    public func column<T: PQDecodable>(_ sql: String, _ parameters: [(any PQEncodable)?] = [], as type: T.Type = T.self) throws -> [T] {
        try execute(unsafeSQL: sql, parameters).map { try $0.decode(T.self, at: 0) }
    }

    /// Every row, every column as text (NULL as nil); cast non-text columns with `::text` in `sql`.
    public func rows(_ sql: String, _ parameters: [(any PQEncodable)?] = []) throws -> [[String?]] {
        let result = try execute(unsafeSQL: sql, parameters)
        return try result.map { row in try (0..<result.columnCount).map { try row.decode(String?.self, at: $0) } }
    }

    /// Whether schema `name` exists.
    public func schemaExists(_ name: String) throws -> Bool {
        try scalar("SELECT count(*)::int FROM pg_namespace WHERE nspname = $1", [name], as: Int.self) == 1
    }

    /// Every schema that is not PostgreSQL's own, sorted.
    public func userSchemas() throws -> [String] {
        try column("SELECT nspname::text FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' ORDER BY 1")
    }

    /// The backends of this database waiting on a heavyweight lock.
    public func lockWaiters() throws -> [Int32] {
        try column("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
    }

    /// How ``tableChecksums(schema:rowsOrderedBy:)`` orders a table's rows.
    public enum RowOrder: Sendable {
        /// By the `id` column.
        case id
        /// By the row's text (for tables without `id`, or whose ids a migration renumbers).
        case text
    }

    /// md5 of the contents of every table of `schema`, by table name (`empty` for an empty table).
    public func tableChecksums(schema: String, rowsOrderedBy order: RowOrder = .id) throws -> [String: String] {
        let ordering = order == .id ? "t.id" : "t::text"
        var sums: [String: String] = [:]
        for table in try column("SELECT tablename::text FROM pg_tables WHERE schemaname = $1 ORDER BY 1", [schema], as: String.self) {
            sums[table] = try scalar(
                "SELECT coalesce(md5(string_agg(t::text, ',' ORDER BY \(ordering))), 'empty') FROM \(quoteIdentifier(schema)).\(quoteIdentifier(table)) t",
                as: String.self
            )
        }
        return sums
    }
}
