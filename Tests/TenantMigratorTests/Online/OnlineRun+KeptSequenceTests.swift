import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Issue 34: a sequence of the model that both versions have (`sequences:`, kept) and that a table
/// a mapping fills draws from, as Hibernate's one sequence for every table. A distinct mapping
/// makes Status rows with the keys' ranks as ids; offline the step then moves the sequence past
/// them (never back: Label draws from it too). Online the shadow's sequence is moved so by the
/// build, and catch-up makes rows for keys the app added meanwhile; the cutover must leave the
/// sequence past all of them and past every value the app drew from the live one, whichever is
/// further: setting it to the live position alone set it back below the mapped ids, and the app's
/// next Status took an id in use (23505).
@Suite("Online runs and a kept sequence a mapping draws past", .serialized)
struct OnlineRunKeptSequenceTests {
    static let v1 = """
        entities:
          Label:
            key: { type: bigint, defaultExpression: "nextval('obj_seq'::regclass)" }
            attributes:
              word: { type: string }
          Issue:
            attributes:
              title: { type: string }
              status: { type: string }
        sequences:
          obj_seq: {}
        """
    /// Issue's status text becomes a Status, keyed from the same sequence as Label.
    static let v2 = v1.replacingOccurrences(of: "      status: { type: string }\n", with: """
                relationships:
                  status: { destination: Status, inverse: issues }
              Status:
                key: { type: bigint, defaultExpression: "nextval('obj_seq'::regclass)" }
                attributes:
                  name: { type: string }
                relationships:
                  issues: { destination: Issue, toMany: true, inverse: status }

            """)
    static let up = IssueStatusMappings.up
    static let down = IssueStatusMappings.down

    /// The app draws a label's id while the run copies (the live sequence moves a little), and adds
    /// issues with new statuses while it builds and catches up (the shadow makes Status rows past
    /// the build's).
    static let writes: [OnlinePhase: [String]] = [
        .copying: ["INSERT INTO S.label (word) VALUES ('copying')"],
        .built: ["INSERT INTO S.issue (title, status) VALUES ('b', 'status 40')"],
        .catchingUp: ["INSERT INTO S.issue (title, status) VALUES ('k', 'status 41'), ('k2', 'status 42')"],
    ]

    @Test func theCutoverNeverSetsTheSequenceBackBelowTheRowsTheMappingMade() async throws {
        let family = try OnlineFamilyDirectory("Issues", versions: [("v1", Self.v1), ("v2", Self.v2)], mappings: [("v1-to-v2", Self.up), ("v2-to-v1", Self.down)])
        defer { family.remove() }
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: family.directory, logger: .quiet("OnlineKeptSequence"))
            let connection = try Connection(conninfo)
            try await OnlineTwins.create(migrator, connection) { connection, schema in
                // One label (the sequence at 1), 30 statuses: the mapping makes Status 1 … 30.
                try connection.fixtureScript("""
                    INSERT INTO \(schema).label (word) VALUES ('first');
                    INSERT INTO \(schema).issue (title, status) SELECT 'i' || i, 'status ' || (i % 30 + 10) FROM generate_series(1, 90) AS i
                    """)
            }
            try await OnlineTwins.migrate(migrator, conninfo, to: "v2", allowDestructive: false, writes: Self.writes, batchRows: 20)
            #expect(try connection.userData(of: "tenant_online") == connection.userData(of: "tenant_twin"))
            #expect(try connection.scalar("SELECT count(*) FROM tenant_online.status", as: Int64.self) == 33)
            // The app's next rows, as it writes them: ids the twin gives too, none in use.
            OnlineTwins.expectSameNextIDs(connection, [("status", ["name"]), ("label", ["word"]), ("status", ["name"])])
        }
    }
}
