import Foundation

/// A family for online runs whose step both makes rows per distinct key (`distinct:`) and archives
/// columns that survive, rewritten in place, whose `left_value` is then the column's own text: an
/// Issue's status becomes a Status per distinct status (its link derived from the dropped status,
/// whose entries' `left_value` is `{"status_id": "3"}`), its tags are lower-cased and its meta loses
/// `draft`. The app's text starting with `{` (`{draft}`, not JSON) or its JSON holding the link's
/// name is no link: an online run whose catch-up moves the keys must leave it as it is.
public enum BracedArchiveFamily {
    /// v1: an issue's status is text; its tags and meta survive to v2.
    public static let v1 = """
        entities:
          Issue:
            attributes:
              title: { type: string }
              status: { type: string }
              tags: { type: string, optional: true }
              meta: { type: json, optional: true }
        """
    /// v2: the status is a Status of its own.
    public static let v2 = """
        entities:
          Issue:
            attributes:
              title: { type: string }
              tags: { type: string, optional: true }
              meta: { type: json, optional: true }
            relationships:
              status: { destination: Status, inverse: issues }
          Status:
            attributes:
              name: { type: string }
            relationships:
              issues: { destination: Issue, toMany: true, inverse: status }
        """
    /// A Status per distinct status, by first issue; tags lower-cased and meta's `draft` removed, in
    /// place (both archived, their `left_value` the column's text). No mapping back: v2 → v1 is
    /// inferred, and gives each status back from the archive where the row still has the link its
    /// entry's `left_value` names.
    public static let up = IssueStatusMappings.up.replacingOccurrences(of: "    destination: Issue\n    relationships:", with: """
            destination: Issue
            attributes:
              tags: "lower(source.tags)"
              meta: "source.meta - 'draft'"
            relationships:
        """)

    /// The versions' files and the mapping models' (`Mappings/<name>.yaml`), by name.
    public static let versions = [("v1", v1), ("v2", v2)]
    public static let mappings = [("v1-to-v2", up)]

    /// What the app wrote that the step rewrites in place.
    public enum AppValue: String, CaseIterable, Sendable {
        /// Issue 12's tags `{Draft}`: text, not JSON (`{draft}` once lower-cased).
        case text
        /// Issue 13's meta `{"draft": true, "status_id": "3"}`: a JSON object with the link's name,
        /// and 3 the id of status 3 (of issue 13) until the keys move.
        case json

        var update: String {
            switch self {
            case .text: "UPDATE %@.issue SET tags = '{Draft}' WHERE id = 12"
            case .json: "UPDATE %@.issue SET meta = '{\"status_id\": \"3\", \"draft\": true}' WHERE id = 13"
            }
        }

        /// The archive's entry of the column (``entries``): `column row value → left_value`.
        public var entry: String {
            switch self {
            case .text: "tags 12 {Draft} → {draft}"
            case .json: "meta 13 {\"draft\": true, \"status_id\": \"3\"} → {\"status_id\": \"3\"}"
            }
        }

        /// Issue `id`'s tags and meta at v1.
        func values(of id: Int) -> String {
            switch (self, id) {
            case (.text, 12): "{Draft} ∅"
            case (.json, 13): "∅ {\"draft\": true, \"status_id\": \"3\"}"
            default: "∅ ∅"
            }
        }
    }

    /// The statements that fill a tenant at v1 in `schema`: 30 issues, status `status <id % 5>`
    /// (statuses 1, 2, 3, 4, 0 get ids 1 … 5 by first issue), and `value`.
    public static func seed(_ value: AppValue, _ schema: String) -> [String] {
        ["INSERT INTO \(schema).issue (title, status) SELECT 'i' || i, 'status ' || (i % 5) FROM generate_series(1, 30) AS i",
         String(format: value.update, schema)]
    }

    /// What the app writes while the run catches up (`S.` for the tenant's schema): it deletes every
    /// issue of status 1 (the first key: statuses 2, 3, 4, 0 move to ids 1 … 4, and the round
    /// renumbers them and their links), and edits issues 12 and 13 (their entries are made again
    /// in the round's delta, and their links translated).
    public static let catchUpWrites = ["DELETE FROM S.issue WHERE status = 'status 1'", "UPDATE S.issue SET title = title || ' (edited)' WHERE id IN (12, 13)"]

    /// `id name` of each Status at v2 (`%@`: the schema), and what it must be: the keys moved.
    public static let statuses = "SELECT s.id || ' ' || s.name FROM %@.status AS s ORDER BY s.id"
    public static let expectedStatuses = ["1 status 2", "2 status 3", "3 status 4", "4 status 0"]

    /// The archive's entries of tags and meta that hold a value (``AppValue/entry``).
    public static let entries = "SELECT a.column_name || ' ' || a.row_id || ' ' || a.value || ' → ' || coalesce(a.left_value, '∅') FROM %@._tm_archive AS a "
        + "WHERE a.table_name = 'issue' AND a.column_name IN ('tags', 'meta') AND a.value IS NOT NULL ORDER BY 1"

    /// The dropped status's entries of issues 12 and 13, and what they must be: each row's link as
    /// renumbered (statuses 2 and 3 now 1 and 2).
    public static let links = "SELECT a.row_id || ' ' || a.left_value FROM %@._tm_archive AS a WHERE a.table_name = 'issue' AND a.column_name = 'status' "
        + "AND a.row_id IN (12, 13) ORDER BY a.row_id"
    public static let expectedLinks = ["12 {\"status_id\": \"1\"}", "13 {\"status_id\": \"2\"}"]

    /// Each issue at v1: `id title status tags meta`.
    public static let issues = "SELECT i.id || ' ' || i.title || ' ' || i.status || ' ' || coalesce(i.tags, '∅') || ' ' || coalesce(i.meta::text, '∅') "
        + "FROM %@.issue AS i ORDER BY i.id"

    /// ``issues`` after the app's writes, back at v1: every value as the app left it.
    public static func expectedIssues(_ value: AppValue) -> [String] {
        (1...30).filter { $0 % 5 != 1 }.map { id in
            "\(id) i\(id)\([12, 13].contains(id) ? " (edited)" : "") status \(id % 5) \(value.values(of: id))"
        }
    }

    /// The archive's superseded entries (`column row`): none, where every value came back.
    public static let superseded = "SELECT a.column_name || ' ' || a.row_id FROM %@._tm_archive AS a WHERE a.superseded ORDER BY 1"
}
