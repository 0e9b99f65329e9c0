import EntityModel
import TypedSQL

extension ArchivePlan {
    /// The proved items' columns, as the step drops them (``SchemaOperation/dropColumn(table:column:)``):
    /// with the archive on, those drops wait until the proved copies ran, at the end of the step.
    var provedDrops: [SchemaOperation] {
        items.filter(\.proved).compactMap { item in
            item.column.map { .dropColumn(table: names.liveTable(item.table), column: names.liveColumn($0, of: item.table)) }
        }
    }

    /// One `INSERT … SELECT` per proved table: a marker entry (``WayBackProof/markerColumn``)
    /// that records what the way back derives, then the values of its proved columns, in the rows
    /// where the way back would not give them back (it does not select the row, or derives another
    /// value; every row of a column that spares none, ``WayBackProof/Column/spares``), with what it
    /// derives as `left_value` for compare-and-restore. Runs once the step's
    /// mappings, policies and closing stage ran, before the proved columns are dropped.
    var provedCopies: [SQL] {
        proofs.compactMap { proof -> SQL? in
            let columns = proof.columns.filter { column in items.contains { $0.proved && $0.table == proof.table && $0.column == column.name } }
            guard !columns.isEmpty else { return nil }
            let pair = pairs[0]
            let entry: SQL = "\(bind: .text(pair.from)), \(bind: .text(pair.to)), \(bind: .text(proof.table)), "
            // The marker: what the way back derives, for the way back to check it still does, and
            // (as its target) that declaration and the table's last row (``RecordedWayBack``).
            // A keyed table's rows are kept by their key (``ArchiveRowKey``), `row_id` 0.
            let rowKey = ArchiveRowKey(proof.table, in: sourceSchema)
            let row: SQL = rowKey.map { "0, \($0.text(of: "source") { names.liveColumn($0, of: proof.table) })" } ?? "source.id"
            let marker: SQL = "INSERT INTO \(table: TenantArchive.tableName) (step_from, step_to, table_name, column_name, row_id, \((rowKey == nil ? "" : "row_key, ") as SQL)value, left_value, compares, target) "
                + "SELECT \(entry)\(bind: .text(WayBackProof.markerColumn)), 0, \((rowKey == nil ? "" : "NULL, ") as SQL)\(bind: .text(proof.signature)), \(bind: .text(proof.file)), false, "
                + "\(RecordedWayBack.target(of: proof, columns: columns)) "
                + "UNION ALL SELECT \(entry)"
            func value(_ column: WayBackProof.Column) -> SQL { "source.\(id: names.liveColumn(column.name, of: proof.table))::text" }
            if columns.count == 1 {
                let column = columns[0]
                // (A column that spares nothing is archived in every row.)
                let spared: SQL = column.spares ? " WHERE NOT \(column.selects) OR \(value(column)) IS DISTINCT FROM (\(column.derived))" : ""
                return marker + "\(bind: .text(column.name)), \(row), \(value(column)), \(WayBackProof.fingerprint(column)), true, NULL "
                    + "FROM \(proof.from)\(spared)"
            }
            // Several columns of one table: one pass over its rows.
            let rows: [SQL] = columns.map { "(\(literal: $0.name), \(value($0)), \($0.derived), \($0.selects), \(($0.spares ? "true" : "false") as SQL))" }
            return marker + "tm_v.column_name, \(row), tm_v.value, pg_catalog.jsonb_build_array(tm_v.derived)::text, true, NULL "
                + "FROM \(proof.from) CROSS JOIN LATERAL (VALUES \(rows, joinedBy: ", ")) AS tm_v(column_name, value, derived, selects, spares) "
                + "WHERE NOT tm_v.spares OR NOT tm_v.selects OR tm_v.value IS DISTINCT FROM tm_v.derived"
        }
    }
}
