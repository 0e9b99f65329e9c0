import EntityModel
import LibPQ

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

    /// The query's text in `schema`, after the row `after` when given, in id order.
    func text(schema: String, after: Int64? = nil, quoting q: some SQLQuoting) -> String {
        var text = head.text(schema: schema, quoting: q)
        if let after { text += (isFiltered ? " AND " : " WHERE ") + "source.id > \(after)" }
        return text + " ORDER BY source.id"
    }
}

/// The ``SourceQuery`` of each mapping of one compiled step, worked out by the first tenant that
/// runs the mapping's policy and read by every other tenant of the fleet run (the plan, and with
/// it the step's program, is shared by the run's tenants).
final class SourceQueries: Sendable {
    private let queries = Locked<[String: SourceQuery]>([:])

    init() {}

    /// The query of `mapping` with the to-many relationships `related`, made by `make` the first time.
    func query(of mapping: String, related: [String], make: () throws -> SourceQuery) rethrows -> SourceQuery {
        let key = ([mapping] + related).joined(separator: "\u{1F}")
        if let known = queries.withLock({ $0[key] }) { return known }
        let query = try make()
        queries.withLock { $0[key] = query }
        return query
    }
}
