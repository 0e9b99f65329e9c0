import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// An online run of a step that makes rows per distinct key (`distinct:`) renumbers them after a
/// catch-up round whose changes move keys, and rewrites the links the archive keeps in the
/// `left_value` of the dropped column they are derived from (`{"status_id": "3"}`). The same step
/// archives columns that survive, rewritten in place, whose `left_value` is the column's own text:
/// text the app wrote that starts with `{` (`{draft}`, not JSON), or JSON of the app's that holds
/// the link's name. Neither is a link: the run migrates, the entry stays as the offline twin has
/// it, and every value comes back on the way down, online or offline.
@Suite("Online runs and archived text that starts with a brace", .serialized)
struct OnlineRunBracedArchiveTests {
    /// v1: an issue's status is text; its tags and meta survive to v2.
    static let v1 = """
        entities:
          Issue:
            attributes:
              title: { type: string }
              status: { type: string }
              tags: { type: string, optional: true }
              meta: { type: json, optional: true }
        """
    /// v2: the status is a Status of its own.
    static let v2 = """
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
    static let up = """
        source: v1
        destination: v2
        entityMappings:
          - name: IssueToStatus
            source: Issue
            destination: Status
            distinct: "source.status"
            attributes:
              name: source.status
          - name: IssueToIssue
            source: Issue
            destination: Issue
            attributes:
              tags: "lower(source.tags)"
              meta: "source.meta - 'draft'"
            relationships:
              status: IssueToStatus
        """

    /// What the app wrote that the step rewrites in place.
    enum AppValue: String, CaseIterable, Sendable {
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

        /// The archive's entry of the column: `column row value → left_value`.
        var entry: String {
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

    /// 30 issues, status `status <id % 5>`: statuses 1, 2, 3, 4, 0 have ids 1 … 5 by first issue.
    static func seed(_ value: AppValue, _ schema: String) -> String {
        "INSERT INTO \(schema).issue (title, status) SELECT 'i' || i, 'status ' || (i % 5) FROM generate_series(1, 30) AS i;\n"
            + String(format: value.update, schema)
    }

    /// While the run catches up, the app deletes every issue of status 1 (the first key: statuses
    /// 2, 3, 4, 0 move to ids 1 … 4, and the round renumbers them and their links), and edits issues
    /// 12 and 13 (their entries are made again in the round's delta, and their links translated).
    static let writes: [OnlinePhase: [String]] = [
        .catchingUp: ["DELETE FROM S.issue WHERE status = 'status 1'", "UPDATE S.issue SET title = title || ' (edited)' WHERE id IN (12, 13)"],
    ]

    /// Each issue at v1 after the app's writes: `id title status tags meta`.
    static func expectedIssues(_ value: AppValue) -> [String] {
        (1...30).filter { $0 % 5 != 1 }.map { id in
            "\(id) i\(id)\([12, 13].contains(id) ? " (edited)" : "") status \(id % 5) \(value.values(of: id))"
        }
    }

    @Test(arguments: AppValue.allCases, [true, false])
    func keysMoveAndTheArchivedTextOfASurvivingColumnStays(value: AppValue, downOnline: Bool) async throws {
        let family = try OnlineFamilyDirectory("Issues", versions: [("v1", Self.v1), ("v2", Self.v2)])
        defer { family.remove() }
        let mappings = family.directory.appendingPathComponent("Mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        try Self.up.write(to: mappings.appendingPathComponent("v1-to-v2.yaml"), atomically: true, encoding: .utf8)
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: family.directory, logger: .quiet("OnlineBracedArchive"))
            let connection = try Connection(conninfo)
            try await OnlineTwins.create(migrator, connection) { connection, schema in try connection.fixtureScript(Self.seed(value, schema)) }
            try await OnlineTwins.migrate(migrator, conninfo, to: "v2", writes: Self.writes, batchRows: 10)

            // The keys moved (status 1 went): ids by first issue, as offline.
            let statuses = "SELECT s.id || ' ' || s.name FROM %@.status AS s ORDER BY s.id"
            for schema in OnlineTwins.schemas {
                let rows = try connection.column(String(format: statuses, schema), as: String.self)
                #expect(rows == ["1 status 2", "2 status 3", "3 status 4", "4 status 0"], "\(schema)")
            }
            // The surviving column's entry is what the step left, as offline: no link was read in it.
            let entries = "SELECT a.column_name || ' ' || a.row_id || ' ' || a.value || ' → ' || coalesce(a.left_value, '∅') FROM %@._tm_archive AS a "
                + "WHERE a.table_name = 'issue' AND a.column_name IN ('tags', 'meta') AND a.value IS NOT NULL ORDER BY 1"
            for schema in OnlineTwins.schemas {
                let rows = try connection.column(String(format: entries, schema), as: String.self)
                #expect(rows == [value.entry], "\(schema)")
            }
            // The dropped status's entries name each row's link as renumbered, as offline: 12 and 13
            // (statuses 2 and 3) link to 1 and 2.
            let links = "SELECT a.row_id || ' ' || a.left_value FROM %@._tm_archive AS a WHERE a.table_name = 'issue' AND a.column_name = 'status' "
                + "AND a.row_id IN (12, 13) ORDER BY a.row_id"
            for schema in OnlineTwins.schemas {
                let rows = try connection.column(String(format: links, schema), as: String.self)
                #expect(rows == ["12 {\"status_id\": \"1\"}", "13 {\"status_id\": \"2\"}"], "\(schema)")
            }

            // The way down gives back every value: each status by its (renumbered) link, tags and meta as the app wrote them.
            let down = try await migrator.migrate(tenant: "online", MigrationRequest(.move, to: "v1", allowDestructive: true, online: downOnline ? .on : .off))
            #expect(down.outcome == .migrated)
            let twin = try await migrator.migrate(tenant: "twin", MigrationRequest(.move, to: "v1", allowDestructive: true))
            #expect(twin.outcome == .migrated)
            let issues = "SELECT i.id || ' ' || i.title || ' ' || i.status || ' ' || coalesce(i.tags, '∅') || ' ' || coalesce(i.meta::text, '∅') FROM %@.issue AS i ORDER BY i.id"
            let superseded = "SELECT a.column_name || ' ' || a.row_id FROM %@._tm_archive AS a WHERE a.superseded ORDER BY 1"
            for schema in OnlineTwins.schemas {
                let rows = try connection.column(String(format: issues, schema), as: String.self)
                #expect(rows == Self.expectedIssues(value), "\(schema)")
                let kept = try connection.column(String(format: superseded, schema), as: String.self)
                #expect(kept.isEmpty, "\(schema): superseded entries")
            }
        }
    }
}
