import EntityModel
import LibPQ
import TypedSQL

/// The query of a mapping's source rows (its filter applied, in id order), but for the tenant's
/// schema: what it selects depends on the step and the mapping alone, so a fleet run works it out
/// once (``SourceQueries``) and each tenant only renders it for its schema.
struct SourceQuery: Sendable {
    /// `SELECT … FROM <schema>.table AS source [joins] [WHERE filter]`.
    let head: SQL
    /// Whether `head` has a `WHERE` clause.
    let isFiltered: Bool
    /// The source table (unqualified).
    let table: String
    /// Whether it reads every row of the table (no filter, no join).
    let readsEveryRow: Bool
    /// Where each property is in its rows.
    let columns: [String: Int]

    /// The query, after the row `after` when given, in id order.
    func sql(after: Int64? = nil) -> SQL {
        var sql = head
        if let after { sql.append(isFiltered ? " AND source.id > \(int: after)" : " WHERE source.id > \(int: after)") }
        sql.append(" ORDER BY source.id")
        return sql
    }
}

/// The ``SourceQuery`` of each mapping of one compiled step (by mapping name and the to-many
/// relationships it reads), worked out by the first tenant that runs the mapping's policy.
typealias SourceQueries = Memo<[String], SourceQuery>
