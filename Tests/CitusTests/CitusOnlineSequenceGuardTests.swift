import Dispatch
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
            let v1 = """
                entities:
                  Book:
                    key: { type: bigserial }
                    attributes:
                      title: { type: string }
                      note: { type: string, optional: true }
                """
            let v2 = v1.replacingOccurrences(of: "\n      note: { type: string, optional: true }", with: "")
            try await Self.withFamily(fixture, "Books", versions: [("v1", v1), ("v2", v2)]) { migrator in
                let tenant = fixture.names(1, "draw")[0], schema = "tenant_" + tenant
                _ = try await migrator.createTenant(tenant, version: "v1")
                try fixture.connection.execute(unsafeSQL: "INSERT INTO \(schema).book (title, note) SELECT 'b' || i, 'n' || i FROM generate_series(1, 20) AS i")
                let conninfo = fixture.conninfo
                let drawn = Locked<String?>(nil), sawItWait = Locked(false)
                let done = DispatchSemaphore(value: 0)
                var online = migrator
                online.settings.online.checkpoint = { checkpoint in
                    guard checkpoint.phase == .cutoverSwapped else { return }
                    Thread.detachNewThread {
                        defer { done.signal() }
                        do {
                            let app = try Connection(conninfo, logger: quietLogger)
                            let value = try app.scalar("SELECT nextval('\(schema).book_id_seq')", as: Int64.self)
                            drawn.withLock { $0 = String(value) }
                        } catch {
                            drawn.withLock { $0 = "failed: \(error)" }
                        }
                    }
                    // The cutover goes on once that session waits for the sequence (bounded, not timed).
                    let watcher = try Connection(conninfo, logger: quietLogger)
                    let deadline = ContinuousClock.now + .seconds(120)
                    while ContinuousClock.now < deadline {
                        let waiting = try watcher.scalar("""
                            SELECT count(*)::int FROM pg_locks WHERE NOT granted AND relation = to_regclass('\(schema).book_id_seq')
                            """, as: Int.self)
                        if waiting > 0 { sawItWait.withLock { $0 = true }; return }
                        usleep(5_000)
                    }
                }
                let result = try await online.migrate(tenant: tenant, MigrationRequest(.move, to: "v2", allowDestructive: true, online: .on))
                #expect(result.outcome == .migrated)
                done.wait()
                #expect(sawItWait.value)
                let given = try (1...10).map { _ in
                    try fixture.connection.scalar("INSERT INTO \(schema).book (title) VALUES ('after') RETURNING id::bigint", as: Int64.self)
                }
                let outcome = try #require(drawn.value)
                if let value = Int64(outcome) {
                    #expect(!given.contains(value), "the waiting session drew \(value), which the new sequence gave again: \(given)")
                } else {
                    #expect(outcome.contains("reached maximum value") || outcome.contains("does not exist"), "\(outcome)")
                }
            }
        }
    }
}
