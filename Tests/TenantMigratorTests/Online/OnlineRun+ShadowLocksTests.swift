import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// The shadow is the migrator's alone, but autovacuum, drawn by the rows just copied, may hold one
/// of its tables when the run builds on it: it yields to a waiting lock only after
/// `deadlock_timeout` (1 s, as long as the default `lock_timeout`), so the wait could time out
/// first (55P03). The build is then retried as any lost lock race, not reported as a failure.
/// (Seen in `tenant-migrate-bench online` at 1,000,000 rows: v3 → v2 failed with 55P03 on
/// `ANALYZE` of a shadow table while autovacuum held it.)
@Suite("Online runs: shadow tables held by someone else")
struct OnlineRunShadowLocksTests {
    @Test func aStepOnAShadowTableHeldForAWhileIsRetried() async throws {
        let v1 = """
            entities:
              Note:
                attributes:
                  text: { type: varchar(40), allowsNarrowing: true, optional: true }
            """
        let v2 = v1.replacingOccurrences(of: "varchar(40), allowsNarrowing: true", with: "varchar(80)")
        try await OnlineFamilyDirectory.withMigrator("Notes", versions: [("v1", v1), ("v2", v2)], logger: "ShadowLocks") { migrator, connection, conninfo in
            var migrator = migrator
            _ = try await migrator.createTenant("notes", version: "v1")
            try connection.fixtureScript("INSERT INTO tenant_notes.note (text) SELECT 'n' || g FROM generate_series(1, 50) AS g")
            migrator.settings.lockTimeout = .milliseconds(200)
            migrator.settings.maxAttempts = 30
            // From the first copy batch, another session holds the shadow's note table as autovacuum
            // would (SHARE UPDATE EXCLUSIVE), until it has seen the run wait for it, and three
            // lock timeouts more.
            let holder = ShadowTableHolder(conninfo: conninfo, table: "note", holdAfterWaiter: .milliseconds(600))
            migrator.settings.online.checkpoint = { checkpoint in
                if checkpoint.phase == .copying { try holder.start() }
            }
            let result = try await migrator.migrate(tenant: "notes", MigrationRequest(.move, to: "v2", online: .on))
            holder.join()
            #expect(holder.failure.value == nil, "\(holder.failure.value ?? "")")
            #expect(holder.sawTheRunWait.value, "the run never waited for the held shadow table")
            #expect(result.outcome == .migrated)
            #expect(result.online?.mode == "shadow")
            #expect(try connection.tenantVersions()["notes"]?.version == "v2")
            #expect(try connection.scalar("SELECT count(*)::int FROM tenant_notes.note", as: Int.self) == 50)
        }
    }
}

/// A session of its own, on a thread of its own, that locks a table of the online run's shadow
/// schema (found by its name, `_tm_online_…`), holds it until another backend waits for it, then a
/// while more, and lets go.
final class ShadowTableHolder: Sendable {
    let conninfo: String, table: String, holdAfterWaiter: Duration
    let sawTheRunWait = Locked(false)
    let failure = Locked<String?>(nil)
    private let started = Locked(false)
    private let locked = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    init(conninfo: String, table: String, holdAfterWaiter: Duration) {
        (self.conninfo, self.table, self.holdAfterWaiter) = (conninfo, table, holdAfterWaiter)
    }

    /// Starts the holder once; returns when it holds the table.
    func start() throws {
        guard !started.withLock({ let was = $0; $0 = true; return was }) else { return }
        Thread.detachNewThread { [self] in
            defer { done.signal() }
            do { try hold() } catch { failure.withLock { $0 = "\(error)" }; locked.signal() }
        }
        locked.wait()
    }

    /// Waits for the holder to end.
    func join() {
        guard started.value else { return }
        done.wait()
    }

    private func hold() throws {
        let session = try Connection(conninfo)
        let schema = try session.scalar(
            "SELECT nspname::text FROM pg_catalog.pg_namespace WHERE nspname LIKE '\\_tm\\_online\\_%' ORDER BY oid DESC LIMIT 1", as: String.self
        )
        try session.execute("BEGIN")
        try session.execute(unsafeSQL: "LOCK TABLE \(session.quoteIdentifier(schema)).\(session.quoteIdentifier(table)) IN SHARE UPDATE EXCLUSIVE MODE")
        locked.signal()
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            let waiters = try session.scalar("""
                SELECT count(*)::int FROM pg_catalog.pg_locks
                WHERE NOT granted AND relation = pg_catalog.to_regclass($1)
                """, [session.quoteIdentifier(schema) + "." + session.quoteIdentifier(table)], as: Int.self)
            if waiters > 0 { sawTheRunWait.withLock { $0 = true }; break }
            usleep(5_000)
        }
        if sawTheRunWait.value { Thread.sleep(forTimeInterval: holdAfterWaiter / .milliseconds(1) / 1000) }
        try session.execute("COMMIT")
    }
}
