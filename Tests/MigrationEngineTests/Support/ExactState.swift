import EntityModel
import LibPQ
import TypedSQL

/// Everything of a tenant's schema a round trip must give back, read as text: every value of every
/// column as `::text` (so `1.0` against `1.00`, `-0`, trailing spaces and leftover columns are
/// told apart, which a comparison through `jsonb` would not), the columns' types, NOT NULL and
/// defaults, every constraint's definition, and each identity's next value (which may move past
/// restored rows, never back).
struct ExactState: Equatable {
    /// By table: its rows, each as `column=quoted text` in column-name order, sorted.
    var rows: [String: [String]] = [:]
    /// `table.column type NOT NULL default`, sorted: the columns as PostgreSQL has them.
    var columns: [String] = []
    /// `table name definition`, sorted.
    var constraints: [String] = []
    /// By table with an identity: its next value.
    var nextIdentity: [String: Int64] = [:]

    /// Reads `schema`'s tables (those of `version`, found by name).
    static func read(_ schema: String, version: ModelVersion, on connection: Connection) throws -> ExactState {
        var state = ExactState()
        let q = connection
        for table in version.relationalSchema().tables {
            let row = table.columns.map(\.name).sorted().map { "\(q.quoteLiteral($0 + "=")) || pg_catalog.quote_nullable(t.\(q.quoteIdentifier($0))::text)" }
                .joined(separator: " || ',' || ")
            state.rows[table.name] = try connection.execute(unsafeSQL: "SELECT \(row) FROM \(q.qualified(schema, table.name)) AS t")
                .map { try $0.decode(String.self, at: 0) }.sorted()
        }
        state.columns = try connection.execute("""
            SELECT c.relname || '.' || a.attname || ' ' || pg_catalog.format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
                || coalesce(' DEFAULT ' || pg_catalog.pg_get_expr(d.adbin, d.adrelid), '') || CASE WHEN a.attidentity <> '' THEN ' IDENTITY ' || a.attidentity::text ELSE '' END
            FROM pg_catalog.pg_attribute AS a JOIN pg_catalog.pg_class AS c ON c.oid = a.attrelid
            LEFT JOIN pg_catalog.pg_attrdef AS d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
            WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped AND c.relname NOT LIKE '\\_tm\\_%'
            """, [q.quoteIdentifier(schema)]).map { try $0.decode(String.self, at: 0) }.sorted()
        state.constraints = try connection.execute("""
            SELECT c.relname || ' ' || k.conname || ' ' || pg_catalog.pg_get_constraintdef(k.oid)
            FROM pg_catalog.pg_constraint AS k JOIN pg_catalog.pg_class AS c ON c.oid = k.conrelid
            WHERE c.relnamespace = $1::regnamespace AND c.relname NOT LIKE '\\_tm\\_%'
            """, [q.quoteIdentifier(schema)]).map { try $0.decode(String.self, at: 0) }.sorted()
        for table in version.relationalSchema().tables where table.columns.contains(where: \.isIdentity) {
            let sequence = try connection.execute("SELECT pg_catalog.pg_get_serial_sequence($1, 'id')", [q.qualified(schema, table.name)]).first?
                .decode(String?.self, at: 0)
            guard let sequence else { continue }
            state.nextIdentity[table.name] = try connection.execute("SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM \(quotedByServer: sequence)")
                .first!.decode(Int64.self, at: 0)
        }
        return state
    }

    /// What differs from `before` (this being after the round trip), in words; empty when nothing.
    /// An identity may have moved forward (past restored rows), never back.
    func differences(from before: ExactState) -> [String] {
        var found: [String] = []
        for (table, rows) in before.rows.sorted(by: { $0.key < $1.key }) where self.rows[table] != rows {
            let after = self.rows[table] ?? []
            let lost = rows.filter { !after.contains($0) }.prefix(2), new = after.filter { !rows.contains($0) }.prefix(2)
            found.append("\(table): rows differ as text (was \(lost), now \(new))")
        }
        if columns != before.columns {
            found.append("columns differ: was \(before.columns.filter { !columns.contains($0) }), now \(columns.filter { !before.columns.contains($0) })")
        }
        if constraints != before.constraints {
            found.append("constraints differ: was \(before.constraints.filter { !constraints.contains($0) }), now \(constraints.filter { !before.constraints.contains($0) })")
        }
        for (table, next) in before.nextIdentity where (nextIdentity[table] ?? .min) < next {
            found.append("\(table): the identity's next value went back from \(next) to \(nextIdentity[table].map(String.init) ?? "none")")
        }
        return found
    }
}
