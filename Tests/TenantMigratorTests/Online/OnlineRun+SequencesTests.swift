import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Issue 34: a model with sequences of its own migrates online. The shadow's sequences are made
/// at the live ones' positions and changed by the steps as offline; the cutover moves them into
/// the tenant's schema at the position the tenant's had then (the app's draws during the run
/// included), with their rights, so ids the app takes never collide.
@Suite("Online runs of models with sequences", .serialized)
struct OnlineRunSequencesTests {
    static let v1 = """
        entities:
          Part:
            key: { type: bigint, defaultExpression: "nextval('part_seq'::regclass)" }
            attributes:
              name: { type: varchar(40) }
              note: { type: string, optional: true }
          Bin:
            key: { type: serial }
            attributes:
              label: { type: string }
        sequences:
          part_seq: { increment: 50 }
        """

    /// v2 drops `note` (archived: a shadow), draws parts by 10 from now on, and adds a sequence
    /// for a new entity.
    static let v2 = v1.replacingOccurrences(of: "      note: { type: string, optional: true }\n", with: "")
        .replacingOccurrences(of: "part_seq: { increment: 50 }", with: "part_seq: { increment: 10 }\n  tag_seq: { start: 1000 }")
        .replacingOccurrences(of: "entities:\n", with: "entities:\n  Tag:\n    key: { type: bigint, defaultExpression: \"nextval('tag_seq'::regclass)\" }\n"
                                + "    attributes:\n      word: { type: string }\n")

    /// The app draws ids at every phase (and one it rolls back, which must not be given again).
    static let writes: [OnlinePhase: [String]] = [
        .copying: ["INSERT INTO S.part (name, note) VALUES ('c1', 'x'), ('c2', NULL)", "INSERT INTO S.bin (label) VALUES ('c')"],
        .built: ["INSERT INTO S.part (name) VALUES ('b1')", "SELECT nextval('S.part_seq')", "DELETE FROM S.part WHERE name = 'p2'"],
        .catchingUp: ["INSERT INTO S.part (name, note) VALUES ('k1', 'y')", "INSERT INTO S.bin (label) VALUES ('k')"],
    ]

    @Test func sequencesKeepTheirPositionsAcrossTheCutoverAsOffline() async throws {
        let family = try OnlineFamilyDirectory("Parts", versions: [("v1", Self.v1), ("v2", Self.v2)])
        defer { family.remove() }
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: family.directory, logger: .quiet("OnlineSequences"))
            let connection = try Connection(conninfo)
            try await OnlineTwins.create(migrator, connection) { connection, schema in
                try connection.fixtureScript("""
                    INSERT INTO \(schema).part (name, note) SELECT 'p' || i, 'n' || i FROM generate_series(1, 20) AS i;
                    INSERT INTO \(schema).bin (label) SELECT 'b' || i FROM generate_series(1, 5) AS i;
                    GRANT USAGE ON SEQUENCE \(schema).part_seq TO PUBLIC
                    """)
            }
            let online = try await OnlineTwins.migrate(migrator, conninfo, to: "v2", writes: Self.writes, batchRows: 7)
            #expect(try connection.userData(of: "tenant_online") == connection.userData(of: "tenant_twin"))
            // The next ids, drawn as the app draws them, are the twin's: past every one taken, by the new increment.
            OnlineTwins.expectSameNextIDs(connection, [("part", ["name"]), ("bin", ["label"]), ("tag", ["word"])])
            // The sequence is the tenant's, with the rights it had.
            #expect(try connection.scalar("SELECT has_sequence_privilege('public', 'tenant_online.part_seq', 'USAGE')", as: Bool.self))
            try await OnlineTwins.expectCleanAndNothingLeft(migrator, connection)
            // Back online: the positions stay, as offline.
            let back = try await online.migrate(tenant: "online", MigrationRequest(.move, to: "v1", allowDestructive: true, online: .on))
            #expect(back.outcome == .migrated)
            _ = try await migrator.migrate(tenant: "twin", MigrationRequest(.move, to: "v1", allowDestructive: true))
            let ids = try ["tenant_online", "tenant_twin"].map {
                try connection.scalar("INSERT INTO \($0).part (name) VALUES ('again') RETURNING id", as: Int64.self)
            }
            #expect(ids[0] == ids[1])
            #expect(try connection.userData(of: "tenant_online") == connection.userData(of: "tenant_twin"))
        }
    }
    /// A session that draws from the tenant's sequence while the cutover holds it (the sequence
    /// moved out and its position read, the commit not yet made) waits for the cutover, then finds
    /// the old sequence: whatever its role (the migrator's own here, to whom no revoke applies), it
    /// takes no id the tenant's new sequence gives again. The same for a `serial` key's sequence,
    /// which moves out with its table.
    @Test(arguments: [("part_seq", "part", "name"), ("bin_id_seq", "bin", "label")])
    func aDrawWaitingOnTheCutoverTakesNoIDTheNewSequenceGivesAgain(sequence: String, table: String, column: String) async throws {
        let family = try OnlineFamilyDirectory("Parts", versions: [("v1", Self.v1), ("v2", Self.v2)])
        defer { family.remove() }
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: family.directory, logger: .quiet("OnlineSequences"))
            let connection = try Connection(conninfo)
            _ = try await migrator.createTenant("online", version: "v1")
            try connection.fixtureScript("""
                INSERT INTO tenant_online.part (name, note) SELECT 'p' || i, 'n' || i FROM generate_series(1, 20) AS i;
                INSERT INTO tenant_online.bin (label) SELECT 'b' || i FROM generate_series(1, 5) AS i
                """)
            let draw = DrawDuringCutover(conninfo: conninfo, sequence: "tenant_online.\(sequence)")
            var online = migrator
            online.settings.online.checkpoint = draw.checkpoint
            let result = try await online.migrate(tenant: "online", MigrationRequest(.move, to: "v2", allowDestructive: true, online: .on))
            #expect(result.outcome == .migrated)
            let (sawItWait, drawn) = draw.outcome()
            #expect(sawItWait)
            let given = try (1...10).map { _ in
                try connection.scalar("INSERT INTO tenant_online.\(table) (\(column)) VALUES ('after') RETURNING id::bigint", as: Int64.self)
            }
            let outcome = try #require(drawn)
            // The retired sequence ends where it stood: the waiting draw fails.
            #expect(outcome.contains("reached maximum value"), "\(outcome)")
            if let value = Int64(outcome) {
                #expect(!given.contains(value), "the waiting session drew \(value), which the new sequence gave again: \(given)")
            }
        }
    }
}
