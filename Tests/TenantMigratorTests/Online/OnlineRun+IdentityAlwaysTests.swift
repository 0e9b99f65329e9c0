import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Issue 33: keys `GENERATED ALWAYS AS IDENTITY` (`key: { type: integer, identity: always }`)
/// online. The run copies the live rows into the shadow, and catch-up the changed ones through the
/// delta, with the ids they have, which such a column refuses without `OVERRIDING SYSTEM VALUE`
/// (428C9, the run failed at its first batch).
@Suite("Online runs of tables keyed by an identity generated always", .serialized)
struct OnlineRunIdentityAlwaysTests {
    static let v1 = """
        entities:
          Shelf:
            key: { type: integer, identity: always }
            attributes:
              label: { type: string }
              note: { type: string, optional: true }
          Tag:
            key: { type: bigint, identity: always }
            attributes:
              word: { type: string }
            relationships:
              shelf: { destination: Shelf, optional: true }
        """
    /// `note` goes (archived: the step runs in the shadow), and catch-up follows the app's writes.
    static let v2 = v1.replacingOccurrences(of: "      note: { type: string, optional: true }\n", with: "")

    static let writes: [OnlinePhase: [String]] = [
        .copying: ["INSERT INTO S.shelf (label, note) VALUES ('copying', 'c')", "UPDATE S.shelf SET label = 'renamed' WHERE id = 2",
                   "DELETE FROM S.tag WHERE id = 3"],
        .built: ["INSERT INTO S.tag (word, shelf_id) VALUES ('built', 4)", "UPDATE S.shelf SET note = 'b' WHERE id = 5"],
        .catchingUp: ["INSERT INTO S.shelf (label) VALUES ('catching up')", "DELETE FROM S.shelf WHERE id = 6"],
    ]

    @Test func tablesKeyedByAnIdentityGeneratedAlwaysMigrateOnlineAsOffline() async throws {
        try await OnlineFamilyDirectory.withMigrator("Keys", versions: [("v1", Self.v1), ("v2", Self.v2)], logger: "OnlineIdentityAlways") { migrator, connection, conninfo in
            try await OnlineTwins.create(migrator, connection) { connection, schema in
                try connection.fixtureScript("""
                    INSERT INTO \(schema).shelf (label, note) SELECT 's' || i, 'n' || i FROM generate_series(1, 40) AS i;
                    INSERT INTO \(schema).tag (word, shelf_id) SELECT 't' || i, 1 + i % 40 FROM generate_series(1, 40) AS i
                    """)
            }
            try await OnlineTwins.migrate(migrator, conninfo, to: "v2", writes: Self.writes, batchRows: 15)
            #expect(try connection.userData(of: "tenant_online") == connection.userData(of: "tenant_twin"))
            OnlineTwins.expectSameNextIDs(connection, [("shelf", ["label"]), ("tag", ["word"])])
        }
    }
}
