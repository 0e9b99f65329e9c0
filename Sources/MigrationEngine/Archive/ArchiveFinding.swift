import EntityModel

/// One thing the archive showed of a run, by table and column, for `check --round-trip` and
/// `--rehearse` (issue 30: they exist to show where a rollback would not give a value back as it
/// was): a proof by the way back withheld as unsafe, archived values the app's changes superseded,
/// links not given back because the row under their key or id is no longer what they pointed at.
public struct ArchiveFinding: Sendable, Codable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Codable, Hashable, CaseIterable {
        /// A dropped column whose proof by the way back PostgreSQL did not vouch for (a volatile
        /// function, a cast through a session setting, a read outside the tenant): every row's value
        /// was archived. `rows`: the entries archived.
        case proofWithheld
        /// Archived values the way back did not give back because the app changed the value, or what
        /// the way back derives it from (the row itself or other rows), or deleted the row.
        case valuesSuperseded
        /// Archived links not given back because no row is what they pointed at any more (the row
        /// under their key was replaced or changed, or is gone).
        case linksNotRestored
        /// Archived whole rows not given back (their rows or what they link to are gone).
        case rowsSuperseded
    }

    public var kind: Kind
    /// The table and column as the version the entry belongs to names them (`column` nil for whole rows).
    public var table: String
    public var column: String?
    /// The entity and attribute (or relationship) of that column, where the model says.
    public var entity: String?
    public var attribute: String?
    /// How many rows (entries) it concerns.
    public var rows: Int
    /// Of a withheld proof: why PostgreSQL did not vouch for it (`it calls now(), which is not IMMUTABLE`).
    public var reason: String?

    public init(kind: Kind, table: String, column: String?, rows: Int, in schema: RelationalSchema? = nil) {
        self.kind = kind
        self.table = table
        self.column = column
        self.rows = rows
        let table = schema?.table(named: table)
        switch column.flatMap({ table?.column(named: $0)?.origin }) {
        case let .attribute(entity, attribute)?, let .relationship(entity, attribute)?:
            self.entity = entity
            self.attribute = attribute
        default:
            if case let .entity(name)? = table?.origin { entity = name }
        }
    }

    /// `Post.author (post.author_id): 1 link not given back (no row is what it pointed at)`.
    public var description: String {
        let place = column.map { "\(table).\($0)" } ?? table
        let named = entity.map { entity in attribute.map { "\(entity).\($0) (\(place))" } ?? "\(entity) (\(place))" } ?? place
        let plural = rows == 1 ? "" : "s"
        switch kind {
        case .proofWithheld:
            return "\(named): proof by the way back withheld as unsafe\(reason.map { " (\($0))" } ?? ""), \(rows) value\(plural) archived"
        case .valuesSuperseded:
            return "\(named): \(rows) archived value\(plural) superseded by the app's changes"
        case .linksNotRestored:
            return "\(named): \(rows) link\(plural) not given back (no row is what \(rows == 1 ? "it" : "they") pointed at)"
        case .rowsSuperseded:
            return "\(named): \(rows) archived row\(plural) not given back"
        }
    }
}

extension [ArchiveFinding] {
    /// Adds `finding`, summing its rows into one of the same kind, table and column.
    mutating func add(_ finding: ArchiveFinding) {
        // (A withheld proof is worth saying even of an empty table: the next run archives every row.)
        guard finding.rows > 0 || finding.kind == .proofWithheld else { return }
        if let index = firstIndex(where: { $0.kind == finding.kind && $0.table == finding.table && $0.column == finding.column }) {
            self[index].rows += finding.rows
        } else {
            append(finding)
        }
    }
}
