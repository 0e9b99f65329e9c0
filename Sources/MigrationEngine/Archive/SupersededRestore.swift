import EntityModel
import LibPQ
import TypedSQL

extension TenantArchive {
    /// Puts back, on request, the archived values that a way back did not give back because the
    /// app's change won (entries marked `superseded`), and removes the entries it used.
    ///
    /// An entry names its table and column as its pair's source version does, which is where its
    /// way back arrives: only entries whose pair starts at the tenant's `version` are restored
    /// (the others wait for a tenant at their version), into rows that still exist, the newest
    /// entry per row and column, and a link only where the row it names exists. Whole rows stay.
    /// One `UPDATE` per table and column, in the caller's transaction.
    ///
    /// - Returns: the number of values restored.
    @discardableResult
    public static func restoreSuperseded(inSchema schema: String, version: ModelVersion, on connection: Connection) throws -> Int {
        guard try lockOwn(inSchema: schema, mode: .rowExclusive, on: connection), try isCurrent(inSchema: schema, on: connection) else { return 0 }
        let relational = version.relationalSchema()
        let columns = try connection.execute(
            "SELECT DISTINCT table_name, column_name FROM \(table) WHERE superseded AND step_from = $1 AND column_name NOT IN ('', $2) ORDER BY 1, 2",
            schema: schema, [version.name, WayBackProof.markerColumn]
        ).map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) }
        var restored = 0
        for (tableName, columnName) in columns {
            guard let target = relational.table(named: tableName), let column = target.column(named: columnName) else { continue }
            let value: SQL = "a.value\(column.type.cast)"
            var conditions: [SQL] = [ArchiveRowKey.rowIs("t", of: target, entry: "a")]
            if let key = target.foreignKeys.first(where: { $0.columns == [columnName] && $0.referencedColumns.count == 1 }) {
                conditions.append("(a.value IS NULL OR EXISTS (SELECT 1 FROM \(table: key.referencedTable) AS ref "
                    + "WHERE ref.\(id: key.referencedColumns[0]) = \(value)))")
            }
            // The newest superseded entry of each row.
            let newest: SQL = "(SELECT DISTINCT ON (e.row_id, e.row_key) e.ctid AS entry, e.row_id, e.row_key, e.value FROM \(table) AS e WHERE e.superseded "
                + "AND e.step_from = \(literal: version.name) AND e.table_name = \(literal: tableName) "
                + "AND e.column_name = \(literal: columnName) ORDER BY e.row_id, e.row_key, e.archived_at DESC, e.ctid DESC) AS a"
            restored += try connection.execute(
                "WITH restored AS (UPDATE \(table: tableName) AS t SET \(id: columnName) = \(value) "
                    + "FROM \(newest) WHERE \(conditions, joinedBy: " AND ") RETURNING a.entry) "
                    + "DELETE FROM \(table) WHERE ctid = ANY (ARRAY(SELECT r.entry FROM restored AS r))", schema: schema
            ).affectedRows
        }
        return restored
    }
}
