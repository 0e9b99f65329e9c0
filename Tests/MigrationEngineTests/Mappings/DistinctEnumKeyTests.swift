import EntityModel
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigratorTestSupport
import Testing

/// Issue 34: a mapping whose `distinct:` key is an enum column (one Status per status an issue
/// has): one row per value, from its first issue, every issue linked to its value's row, NULLs
/// left unlinked; and back, the enum column filled again from the link.
@Suite("Distinct mappings keyed by an enum column")
struct DistinctEnumKeyTests {
    static let v1 = """
        enums:
          issue_status: [new, open, closed]
        entities:
          Issue:
            attributes:
              title: { type: string }
              status: { type: enum(issue_status), optional: true }
        """
    /// Issue's status becomes a Status of its own, keyed by the enum value.
    static let v2 = v1.replacingOccurrences(of: "      status: { type: enum(issue_status), optional: true }", with: """
                relationships:
                  status: { destination: Status, inverse: issues }
              Status:
                attributes:
                  name: { type: enum(issue_status) }
                relationships:
                  issues: { destination: Issue, toMany: true, inverse: status }
            """)
    static let up = IssueStatusMappings.up
    static let down = IssueStatusMappings.down

    /// v2 with Status keyed by a sequence of the model (Hibernate's way), which the app draws from next.
    static let v2Sequence = v2.replacingOccurrences(of: "  Status:\n", with: "  Status:\n    key: { type: bigint, defaultExpression: \"nextval('status_seq'::regclass)\" }\n")
        + "\nsequences:\n  status_seq: {}\n"

    static func planner(v2: String) throws -> (ModelFamily, MigrationPlanner) {
        let family = try ModelFamily(name: "Issues", versions: [ModelVersion(name: "v1", yaml: Self.v1, file: "Issues/v1.yaml"),
                                                                  ModelVersion(name: "v2", yaml: v2, file: "Issues/v2.yaml")])
        let mappings = try [(Self.up, "v1-to-v2"), (Self.down, "v2-to-v1")].map {
            try MappingModel.load(yaml: $0.0, file: "Issues/Mappings/\($0.1).yaml", family: family, policies: PolicyRegistry())
        }
        return (family, MigrationPlanner(family: family, mappings: mappings))
    }

    /// The rows a mapping makes take their ids explicitly: a key drawn from a model sequence is then
    /// moved past them, so the app's next row does not take one of their ids.
    @Test func aKeyDrawnFromAModelSequenceIsMovedPastTheRowsTheMappingMade() async throws {
        let (family, planner) = try Self.planner(v2: Self.v2Sequence)
        try await TestPostgres.withDatabase { c in
            try c.fixtureScript("CREATE SCHEMA t")
            try c.fixtureScript(try #require(family.version(named: "v1")).relationalSchema().createStatements(inSchema: "t", quoting: c).joined(separator: ";\n"))
            try c.fixtureScript("INSERT INTO t.issue (title, status) VALUES ('a', 'open'), ('b', 'new')")
            _ = try c.transaction { try planner.plan(from: "v1", to: "v2").run(inSchema: "t", on: $0) }
            #expect(try c.column("SELECT id || ' ' || name FROM t.status ORDER BY id", as: String.self) == ["1 open", "2 new"])
            #expect(try c.scalar("INSERT INTO t.status (name) VALUES ('closed') RETURNING id", as: Int64.self) == 3)
        }
    }

    @Test func oneRowPerEnumValueAndEveryIssueLinkedToIt() async throws {
        let (family, planner) = try Self.planner(v2: Self.v2)
        try await TestPostgres.withDatabase { c in
            try c.fixtureScript("CREATE SCHEMA t")
            try c.fixtureScript(try #require(family.version(named: "v1")).relationalSchema().createStatements(inSchema: "t", quoting: c).joined(separator: ";\n"))
            try c.fixtureScript("""
                INSERT INTO t.issue (title, status) VALUES ('a', 'open'), ('b', 'new'), ('c', 'open'), ('d', NULL), ('e', 'closed'), ('f', 'new')
                """)
            _ = try c.transaction { try planner.plan(from: "v1", to: "v2").run(inSchema: "t", on: $0) }
            #expect(try c.column("SELECT id || ' ' || name FROM t.status ORDER BY id", as: String.self) == ["1 open", "2 new", "3 closed"])
            #expect(try c.column("SELECT title || ' ' || coalesce(s.name::text, '-') FROM t.issue AS i LEFT JOIN t.status AS s ON s.id = i.status_id ORDER BY i.id",
                                 as: String.self) == ["a open", "b new", "c open", "d -", "e closed", "f new"])
            _ = try c.transaction { try planner.plan(from: "v2", to: "v1").run(inSchema: "t", on: $0) }
            #expect(try c.column("SELECT title || ' ' || coalesce(status::text, '-') FROM t.issue ORDER BY id", as: String.self)
                    == ["a open", "b new", "c open", "d -", "e closed", "f new"])
        }
    }
}
