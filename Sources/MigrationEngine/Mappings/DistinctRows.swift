import EntityModel
import TypedSQL

/// A distinct mapping, compiled: **one destination row per distinct, non-NULL key K of the source
/// rows S that its filter selects, computed from each key's first row in order O** (ties, and no
/// `orderBy:`, by source id). The destination row of a key has id = offset + the key's rank in the
/// order of the first rows, where the offset is the destination table's largest id before the
/// mapping ran (a transaction-local setting, like an ordinary mapping's).
///
/// When its turn comes in pass 1, the mapping fixes its **keys** once, in a table of the tenant's
/// schema that lives for the mappings' passes (``keysTable``: key, first row's id, destination
/// id): the rows it makes and every link to them (pass 2) use that table, so they agree even when
/// a later mapping changes the columns the key, filter or order read. The parts are kept apart,
/// not only as statements, so that each stage can say "the first rows" or "the row of this key"
/// in SQL of its own.
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
    /// Whether K is text compared byte for byte (the policies' keys, ``keyedAsPolicies``): then its
    /// `pg_catalog.hashtext` tells keys apart as `=` does, and an online run indexes that integer
    /// rather than the text (``OnlineDistinct/recordKeys(shadow:on:)``).
    var keyIsText = false

    /// The table of the keys (`key`, `first`: the first row's id, `id`: the destination id), in the
    /// tenant's schema while the mappings run: `_tm_keys_<mapping>`, or for a name too long for
    /// PostgreSQL (63 bytes), its start and a hash of the whole name.
    var keysTable: String {
        let name = "_tm_keys_" + mapping
        guard name.utf8.count > 63 else { return name }
        let hash = mapping.utf8.reduce(UInt32(2_166_136_261)) { ($0 ^ UInt32($1)) &* 16_777_619 }
        return String(decoding: name.utf8.prefix(40), as: UTF8.self) + "_" + String(hash, radix: 16)
    }

    /// The ids of the first rows, one per key, from the source rows as they are: a hash aggregate
    /// in id order, `DISTINCT ON` (a sort) in any other.
    var firstRowIDs: SQL {
        let conditions = self.conditions + ["(\(key)) IS NOT NULL"]
        guard let order else {
            return "SELECT pg_catalog.min(source.id) FROM \(from) WHERE \(conditions, joinedBy: " AND ") GROUP BY (\(key))"
        }
        return "SELECT DISTINCT ON ((\(key))) source.id FROM \(from) WHERE \(conditions, joinedBy: " AND ") ORDER BY (\(key)), \(order), source.id"
    }

    /// Whether the row `source` is the first row of its key (computed afresh).
    var isFirstRow: SQL { "source.id IN (\(firstRowIDs))" }

    /// Pass 1, before the rows: the offset, then the keys fixed in ``keysTable`` (analyzed, so the
    /// planner joins it by hash however many keys there are).
    var setUp: [SQL] {
        let offset: SQL = "pg_catalog.current_setting(\(offsetSetting))::bigint"
        let keys: SQL
        if order == nil {
            // In id order the first row of a key is its smallest id: no join back to the rows.
            keys = "SELECT tm_k.key, tm_k.first, \(offset) + pg_catalog.row_number() OVER (ORDER BY tm_k.first) AS id "
                + "FROM (SELECT (\(key)) AS key, pg_catalog.min(source.id) AS first FROM \(from) "
                + "WHERE \((conditions + ["(\(key)) IS NOT NULL"]), joinedBy: " AND ") GROUP BY 1) AS tm_k"
        } else {
            keys = "SELECT (\(key)) AS key, source.id AS first, \(offset) + pg_catalog.row_number() OVER (ORDER BY \(order!), source.id) AS id "
                + "FROM \(from) WHERE \(isFirstRow)"
        }
        return [
            "CREATE TABLE \(table: keysTable) AS \(keys)",
            "ANALYZE \(table: keysTable)",
        ]
    }

    /// After pass 2: the keys go.
    var tearDown: SQL { "DROP TABLE \(table: keysTable)" }

    /// A join of the keys to the rows `source`, on the first rows, aliased `alias`.
    func joinFirstRows(as alias: SQLAlias) -> SQL {
        "JOIN \(table: keysTable) AS \(alias: alias) ON \(alias: alias).first = source.id"
    }

    /// The rows (over `source`, S) whose value of `column` is not the value of their key's first
    /// row: the values the destination does not keep, one per key. A row whose key is NULL keeps
    /// nothing (unless its value is NULL too). Computed from the rows as they are (the account's
    /// archive copy runs before the mappings), as `source.id IN (…)`, which PostgreSQL runs as
    /// hash joins.
    func rowsDiffering(in column: SQL) -> SQL {
        "source.id IN (SELECT source.id FROM \(from) LEFT JOIN (SELECT (\(key)) AS key, \(column) AS value FROM \(from) WHERE \(isFirstRow)) AS tm_first "
            + "ON tm_first.key = (\(key)) WHERE \(conditions.isEmpty ? "" : "\(conditions, joinedBy: " AND ") AND ")"
            + "CASE WHEN tm_first.key IS NULL THEN \(column) IS NOT NULL ELSE \(column) IS DISTINCT FROM tm_first.value END)"
    }
}
