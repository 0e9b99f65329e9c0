import EntityModel
import LibPQ
import TypedSQL

/// The last part of a catch-up round for the plan's distinct mappings (see ``OnlineDistinct``):
/// the rows made per key get, as ids, their keys' ranks by first row, as an offline migration of
/// the data as it is now gives them.
///
/// A round keeps the ids of the keys it knew and gives a new key the next free id; but a rank
/// depends on every key's first row: a key that appears with an early first row (a row renamed
/// to a new name), a key that goes, or a key whose first row changes, moves the keys after it.
/// So, after the merge, the keys whose id is not their rank are renumbered, with every link to
/// them: the shadow's foreign keys to the table and the links the archive keeps in a `left_value`
/// (``CatchUpRound/translatedLeftValues(of:)``), in the entries that hold links
/// (``CatchUpRound/entriesHoldingLink(_:)``). Ids and links go through negative values first (two
/// statements, each changing a row and its links together, as the foreign keys check at each
/// statement's end), since the primary key allows no two rows one id even for a moment. The cost
/// is the rows linking to the keys that moved; a round that moves none changes nothing.
extension CatchUpRound {
    /// A round's keys whose id is not their rank: old id, new id (temporary).
    func ranksTable(_ distinct: OnlineDistinct) -> String { "_tm_online_ranks_\(distinct.index)" }

    /// Renumbers the rows made per key whose ids are not their keys' ranks; returns how many.
    @discardableResult
    func renumberDistinctRows() throws -> Int {
        var moved = 0
        for distinct in plan.distinct {
            let keys = "\(shadowTable(distinct.keysTable))" as SQL
            let ranks: SQL = "\(work(ranksTable(distinct)))"
            let found = try connection.pipeline([
                "\(createWork(ranksTable(distinct))) AS SELECT r.id AS old_id, r.rank AS new_id "
                    + "FROM (SELECT k.id, pg_catalog.row_number() OVER (ORDER BY k.first) AS rank FROM \(keys) AS k) AS r WHERE r.id <> r.rank",
                "ANALYZE \(ranks)",
                "SELECT pg_catalog.count(*)::pg_catalog.int8 FROM \(ranks)",
            ], schema: shadow).last?.first?.decode(Int64.self, at: 0) ?? 0
            guard found > 0 else { continue }
            moved += Int(found)
            let links = destination.tables.flatMap { table in
                table.foreignKeys.filter { $0.columns.count == 1 && $0.referencedTable == distinct.destinationTable }.map { (table.name, $0.columns[0]) }
            }
            // old → -new, then -new → new: the table's ids and its links in one statement each.
            for (from, to) in [("m.old_id", "-m.new_id"), ("-m.new_id", "m.new_id")] as [(SQL, SQL)] {
                var updates: [SQL] = ["UPDATE \(shadowTable(distinct.destinationTable)) AS t SET id = \(to) FROM \(ranks) AS m WHERE t.id = \(from) RETURNING 1"]
                updates += links.map { table, column in
                    "UPDATE \(shadowTable(table)) AS t SET \(id: column) = \(to) FROM \(ranks) AS m WHERE t.\(id: column) = \(from) RETURNING 1"
                }
                let parts: [SQL] = updates.enumerated().map { index, update in "tm_u\(int: index) AS (\(update))" }
                try connection.execute("WITH \(parts, joinedBy: ", ") SELECT pg_catalog.count(*) FROM tm_u0", schema: shadow)
            }
            var statements: [SQL] = ["UPDATE \(keys) AS k SET id = m.new_id FROM \(ranks) AS m WHERE k.id = m.old_id"]
            if try shadowHasArchive() {
                // Only the entries of the dropped columns the link is derived from (``entriesHoldingLink(_:)``).
                for column in archivedLinks(to: distinct) {
                    guard let entries = entriesHoldingLink(column) else { continue }
                    statements.append("UPDATE \(shadowTable(TenantArchive.tableName)) AS a SET left_value = pg_catalog.jsonb_set(a.left_value::pg_catalog.jsonb, "
                        + "ARRAY[\(literal: column)], \(Self.jsonString(ofID: "m.new_id")))::pg_catalog.text FROM \(ranks) AS m "
                        + "WHERE \(entries) AND \(archivedLink(column, in: entries)) = m.old_id::pg_catalog.text")
                }
            }
            statements.append("ANALYZE \(keys)")
            try connection.pipeline(statements, schema: shadow)
        }
        return moved
    }
}
