import EntityModel

/// A distinct mapping, compiled: **one destination row per distinct, non-NULL key K of the source
/// rows S that its filter selects, computed from each key's first row in order O** (ties, and no
/// `orderBy:`, by source id). The destination row of a key has id = offset + the key's rank in the
/// order of the first rows, where the offset is the destination table's largest id before the
/// mapping ran (a transaction-local setting, like an ordinary mapping's).
///
/// The parts are kept apart, not only as statements, so that each stage can say "the first rows"
/// or "the row of this key" in SQL of its own: pass 1 inserts the first rows, pass 2 links rows to
/// their key's row through ``keyIDs``, the account compares each row with its key's first row.
struct DistinctRows: Sendable, Hashable {
    /// The entity mapping's name.
    let mapping: String
    /// S: the source table, as named while the mappings run.
    let sourceTable: String
    /// `FROM S AS source` and the joins the key, order and filter need.
    let from: SQL
    /// The filter, and the source entity's rows of a shared hierarchy table (each in parentheses).
    let conditions: [SQL]
    /// K, over the row `source`.
    let key: SQL
    /// O, over the row `source`, as written (`ORDER BY` items); nil for source id order.
    let order: SQL?
    /// The transaction-local setting that holds the offset, as a string constant.
    let offsetSetting: SQL

    /// The ids of the first rows, one per key: a hash aggregate in id order, `DISTINCT ON` (a sort)
    /// in any other.
    var firstRowIDs: SQL {
        let conditions = self.conditions + ["(\(key)) IS NOT NULL"]
        guard let order else {
            return "SELECT pg_catalog.min(source.id) FROM \(from) WHERE \(conditions, joinedBy: " AND ") GROUP BY (\(key))"
        }
        return "SELECT DISTINCT ON ((\(key))) source.id FROM \(from) WHERE \(conditions, joinedBy: " AND ") ORDER BY (\(key)), \(order), source.id"
    }

    /// Whether the row `source` is the first row of its key.
    var isFirstRow: SQL { "source.id IN (\(firstRowIDs))" }

    /// The destination id of a first row `source`, in a query over the first rows only (a window
    /// over them: ranks in the order of the first rows).
    var destinationID: SQL {
        "pg_catalog.current_setting(\(offsetSetting))::bigint + pg_catalog.row_number() OVER (ORDER BY \(order.map { "\($0), " } ?? "")source.id)"
    }

    /// `SELECT key, id`: each key and the id of the row made for it (after pass 1).
    var keyIDs: SQL {
        guard order != nil else {
            // In id order the first row of a key is its smallest id: no join back to the rows.
            return "SELECT tm_k.key, pg_catalog.current_setting(\(offsetSetting))::bigint + pg_catalog.row_number() OVER (ORDER BY tm_k.first) AS id "
                + "FROM (SELECT (\(key)) AS key, pg_catalog.min(source.id) AS first FROM \(from) "
                + "WHERE \((conditions + ["(\(key)) IS NOT NULL"]), joinedBy: " AND ") GROUP BY 1) AS tm_k"
        }
        return "SELECT (\(key)) AS key, \(destinationID) AS id FROM \(from) WHERE \(isFirstRow)"
    }

    /// The rows (over `source`, S) whose value of `column` is not the value of their key's first
    /// row: the values the destination does not keep, one per key. A row whose key is NULL keeps
    /// nothing (unless its value is NULL too). Written as `source.id IN (…)`, which PostgreSQL
    /// runs as hash joins.
    func rowsDiffering(in column: SQL) -> SQL {
        "source.id IN (SELECT source.id FROM \(from) LEFT JOIN (SELECT (\(key)) AS key, \(column) AS value FROM \(from) WHERE \(isFirstRow)) AS tm_first "
            + "ON tm_first.key = (\(key)) WHERE \(conditions.isEmpty ? "" : "\(conditions, joinedBy: " AND ") AND ")"
            + "CASE WHEN tm_first.key IS NULL THEN \(column) IS NOT NULL ELSE \(column) IS DISTINCT FROM tm_first.value END)"
    }
}
