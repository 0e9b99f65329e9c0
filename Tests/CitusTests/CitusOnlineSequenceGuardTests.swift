import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Issue 33: the guard the cutover on plain PostgreSQL has for a key's sequence
/// (OnlineRunSequencesTests) in the swap inside the tenant's schema on Citus. The swap renames the
/// live table's `serial` sequence aside with its table; a session that draws from it by name while
/// the cutover holds it waits, then finds the old sequence, and must take no id the tenant's new
/// sequence (set past the old one's position) gives again.
extension CitusTests {
    @Test func onlineOnCitusADrawWaitingOnTheCutoverTakesNoIDTheNewSequenceGivesAgain() async throws {
        try await CitusFixture.with { fixture in
            let v1 = Self.booksV1
            let v2 = v1.replacingOccurrences(of: "\n      note: { type: string, optional: true }", with: "")
            try await Self.withFamily(fixture, "Books", versions: [("v1", v1), ("v2", v2)]) { migrator in
                let tenant = fixture.names(1, "draw")[0], schema = "tenant_" + tenant
                _ = try await migrator.createTenant(tenant, version: "v1")
                try fixture.connection.execute(unsafeSQL: "INSERT INTO \(schema).book (title, note) SELECT 'b' || i, 'n' || i FROM generate_series(1, 20) AS i")
                let draw = DrawDuringCutover(conninfo: fixture.conninfo, sequence: "\(schema).book_id_seq", logger: quietLogger)
                var online = migrator
                online.settings.online.checkpoint = draw.checkpoint
                let result = try await online.migrate(tenant: tenant, MigrationRequest(.move, to: "v2", allowDestructive: true, online: .on))
                #expect(result.outcome == .migrated)
                let (sawItWait, drawn) = draw.outcome()
                #expect(sawItWait)
                let given = try (1...10).map { _ in
                    try fixture.connection.scalar("INSERT INTO \(schema).book (title) VALUES ('after') RETURNING id::bigint", as: Int64.self)
                }
                let outcome = try #require(drawn)
                if let value = Int64(outcome) {
                    #expect(!given.contains(value), "the waiting session drew \(value), which the new sequence gave again: \(given)")
                } else {
                    #expect(outcome.contains("reached maximum value") || outcome.contains("does not exist"), "\(outcome)")
                }
            }
        }
    }
}
