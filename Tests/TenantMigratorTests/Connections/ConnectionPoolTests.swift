import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import Testing

@Suite("Connection pool") struct ConnectionPoolTests {
    /// Sessions of `database` (the conninfo's) whose application_name is `name`.
    static func sessions(named name: String, on connection: Connection) throws -> Int {
        try connection.scalar(
            "SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1", [name], as: Int.self
        )
    }

    static func applicationName() -> String { "pool-test-" + UUID().uuidString.prefix(8).lowercased() }

    @Test func aHundredCallsOpenAtMostThePoolsSessions() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let name = Self.applicationName()
            let migrator = TenantMigrator(connectionString: conninfo, family: try fixtureFamily("Catalogue"), applicationName: name,
                                          pool: ConnectionPool.Configuration(maximumConnections: 3))
            for tenant in ["a", "b", "c"] { try await migrator.createTenant(tenant) }
            try await migrator.createTenant("old", version: "v1")

            let sampler = Task { () -> Int in
                guard let admin = try? Connection(conninfo) else { return -1 }
                var most = 0
                while !Task.isCancelled {
                    most = max(most, (try? Self.sessions(named: name, on: admin)) ?? 0)
                    try? await Task.sleep(for: .milliseconds(5))
                }
                return most
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for call in 0..<100 {
                    group.addTask {
                        switch call % 4 {
                        case 0: _ = try await migrator.migrateIfNeeded(tenant: ["a", "b", "c", "old"][call / 4 % 4])
                        case 1: #expect(try await migrator.tenant(named: "b")?.version == "v3")
                        case 2: #expect(try await migrator.status().count == 4)
                        default: #expect(try await migrator.tenants().count == 4)
                        }
                    }
                    if call % 10 == 9 { try await group.next() }  // at most ~10 calls in flight
                }
                try await group.waitForAll()
            }
            sampler.cancel()
            let most = await sampler.value
            let admin = try Connection(conninfo)
            let after = try Self.sessions(named: name, on: admin)
            let statistics = migrator.connectionPool.statistics
            // The pool's 3 in all, the connection that listens for catalog changes included.
            #expect(most >= 1 && most <= 3, "at most the pool's 3 sessions, listener included; saw \(most)")
            #expect(after <= 3)
            #expect(statistics.idle + statistics.inUse <= 3)
            #expect(statistics.opened <= 3, "\(statistics)")
            #expect(try await migrator.tenant(named: "old")?.version == "v3")

            await migrator.shutdown()
            #expect(try await waitUntil(timeout: .seconds(60)) { try Self.sessions(named: name, on: admin) == 0 })
            await #expect(throws: CancellationError.self) { try await migrator.tenants() }
        }
    }

    @Test func idleConnectionsCloseAfterTheIdleTimeout() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let name = Self.applicationName()
            let migrator = TenantMigrator(connectionString: conninfo, family: try fixtureFamily("Catalogue"), applicationName: name,
                                          pool: ConnectionPool.Configuration(idleTimeout: .milliseconds(300), cachesCurrentTenants: false))
            try await migrator.createTenant("acme")
            #expect(migrator.connectionPool.statistics.idle == 1)
            let admin = try Connection(conninfo)
            #expect(try Self.sessions(named: name, on: admin) == 1)
            #expect(try await waitUntil(timeout: .seconds(60)) { try Self.sessions(named: name, on: admin) == 0 })
            #expect(migrator.connectionPool.statistics.idle == 0)
            // And the next call opens a new one.
            #expect(try await migrator.tenants().count == 1)
        }
    }

    @Test func aTerminatedConnectionIsNotHandedOutAgain() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let name = Self.applicationName()
            let migrator = TenantMigrator(connectionString: conninfo, family: try fixtureFamily("Catalogue"), applicationName: name,
                                          pool: ConnectionPool.Configuration(maximumConnections: 1, cachesCurrentTenants: false))
            try await migrator.createTenant("acme")
            let first = try await migrator.withConnection { $0.backendPID }
            #expect(try await migrator.withConnection { $0.backendPID } == first, "reused while healthy")
            let admin = try Connection(conninfo)
            try admin.execute("SELECT pg_terminate_backend($1)", [first])
            #expect(try await waitUntil(timeout: .seconds(60)) { try Self.sessions(named: name, on: admin) == 0 })

            #expect(try await migrator.tenants().map(\.name.rawValue) == ["acme"])
            let second = try await migrator.withConnection { $0.backendPID }
            #expect(second != first)
            #expect(migrator.connectionPool.statistics.closed == 1)
        }
    }

    @Test func aFailedCallsConnectionIsClosedAndOthersWaitInLine() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = TenantMigrator(connectionString: conninfo, family: try fixtureFamily("Catalogue"),
                                          pool: ConnectionPool.Configuration(maximumConnections: 1, cachesCurrentTenants: false))
            // Left in a transaction: closed, not pooled.
            try await migrator.withConnection { _ = try $0.execute("BEGIN") }
            #expect(migrator.connectionPool.statistics.closed == 1 && migrator.connectionPool.statistics.idle == 0)

            let order = Locked<[Int]>([])  // the order in which calls got their connection
            let pool = migrator.connectionPool
            // The one connection is held until the test lets go of an advisory lock.
            let admin = try Connection(conninfo)
            try admin.execute("SELECT pg_advisory_lock(42)")
            let holder = Task { try await migrator.withConnection { _ = try $0.execute("SELECT pg_advisory_lock(42), pg_advisory_unlock(42)") } }
            #expect(try await waitUntil(timeout: .seconds(60)) { pool.statistics.inUse == 1 })
            let waiter = Task { try await migrator.withConnection { _ in order.withLock { $0.append(1) } } }
            #expect(try await waitUntil(timeout: .seconds(60)) { pool.statistics.waiting == 1 })
            let cancelled = Task { try await migrator.withConnection { _ in order.withLock { $0.append(99) } } }
            #expect(try await waitUntil(timeout: .seconds(60)) { pool.statistics.waiting == 2 })
            let last = Task { try await migrator.withConnection { _ in order.withLock { $0.append(2) } } }
            #expect(try await waitUntil(timeout: .seconds(60)) { pool.statistics.waiting == 3 })
            cancelled.cancel()
            await #expect(throws: CancellationError.self) { try await cancelled.value }
            #expect(pool.statistics.waiting == 2)
            try admin.execute("SELECT pg_advisory_unlock(42)")
            try await holder.value
            try await waiter.value
            try await last.value
            #expect(order.value == [1, 2])
            #expect(migrator.connectionPool.statistics.opened == 2)
        }
    }

    @Test func aWarmMigrateIfNeededSeesAnotherSessionsRollback() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let family = try fixtureFamily("Catalogue")
            let migrator = TenantMigrator(connectionString: conninfo, family: family)
            try await migrator.createTenant("acme")
            #expect(try await migrator.migrateIfNeeded(tenant: "acme").outcome == .alreadyCurrent)
            let cache = try #require(migrator.currentTenants)
            #expect(cache.isListening && cache.count == 1)
            let opened = migrator.connectionPool.statistics.opened
            for _ in 0..<20 { #expect(try await migrator.migrateIfNeeded(tenant: "acme").outcome == .alreadyCurrent) }
            #expect(migrator.connectionPool.statistics.opened == opened)

            // Another migrator, its own sessions, no cache: rolls acme back.
            let other = TenantMigrator(connectionString: conninfo, family: family,
                                       pool: ConnectionPool.Configuration(cachesCurrentTenants: false))
            #expect(try await other.rollback(tenant: "acme", to: "v2", allowDestructive: true).toVersion == "v2")
            #expect(try await waitUntil(timeout: .seconds(60)) { cache.count == 0 })
            // The rollback pinned acme at v2: the warm call sees it there and leaves it.
            let pinned = try await migrator.migrateIfNeeded(tenant: "acme")
            #expect(pinned.outcome == .pinned && pinned.fromVersion == "v2")
            #expect(try await other.unpin(tenant: "acme"))
            let result = try await migrator.migrateIfNeeded(tenant: "acme")
            #expect(result.outcome == .migrated && result.fromVersion == "v2" && result.toVersion == "v3")

            // A dropped tenant is forgotten too. (Cached again once the announcement of our own
            // migration has been read: a call in between just queries.)
            let warm = try await waitUntil(timeout: .seconds(60)) {
                try await migrator.migrateIfNeeded(tenant: "acme").outcome == .alreadyCurrent && cache.count == 1
            }
            #expect(warm)
            try await other.dropTenant("acme", confirmed: true)
            #expect(try await waitUntil(timeout: .seconds(60)) { cache.count == 0 })
            await #expect(throws: TenantMigratorError.self) { try await migrator.migrateIfNeeded(tenant: "acme") }
        }
    }

    @Test func aLostListenerEmptiesTheCacheAndCallsStillAnswer() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let name = Self.applicationName()
            // Two connections: one for calls, one for the listener.
            let migrator = TenantMigrator(connectionString: conninfo, family: try fixtureFamily("Catalogue"), applicationName: name,
                                          pool: ConnectionPool.Configuration(maximumConnections: 2))
            try await migrator.createTenant("acme")
            _ = try await migrator.migrateIfNeeded(tenant: "acme")
            let cache = try #require(migrator.currentTenants)
            #expect(cache.count == 1)
            let pooled = try await migrator.withConnection { $0.backendPID }
            let admin = try Connection(conninfo)
            // Terminate every session of the migrator but the pooled one: the listener.
            try admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> $2", [name, pooled])
            #expect(try await waitUntil(timeout: .seconds(60)) { !cache.isListening && cache.count == 0 })
            #expect(try await migrator.migrateIfNeeded(tenant: "acme").outcome == .alreadyCurrent)
            // The listener comes back (after its retry delay) on a later call.
            #expect(try await waitUntil(timeout: .seconds(60)) {
                _ = try await migrator.migrateIfNeeded(tenant: "acme")
                return cache.isListening && cache.count == 1
            })
        }
    }

    @Test func aFactorysConnectionsRunWithTheMigratorsSearchPath() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let name = Self.applicationName()
            let migrator = TenantMigrator(
                factory: { try await AsyncConnection.connect(conninfo, applicationName: name) },
                family: try fixtureFamily("Catalogue"), pool: ConnectionPool.Configuration(maximumConnections: 2)
            )
            #expect(migrator.connectionString == "")
            try await migrator.createTenant("acme")
            try await migrator.createTenant("old", version: "v1")
            #expect(try await migrator.migrateIfNeeded(tenant: "old").outcome == .migrated)
            #expect(try await migrator.migrateIfNeeded(tenant: "acme").outcome == .alreadyCurrent)
            let path = try await migrator.withConnection { try $0.scalar("SELECT pg_catalog.current_setting('search_path')", as: String.self) }
            #expect(path == "\"pg_catalog\",\"pg_temp\"")
            let report = try await migrator.migrateAll(jobs: 4)
            #expect(report.failed == 0)
            let admin = try Connection(conninfo)
            #expect(try Self.sessions(named: name, on: admin) >= 1)
            await migrator.shutdown()
        }
    }

    /// A pool of one has no slot to spare for the listener: every call queries the catalog, and
    /// the pool never holds a second session. (The idle timeout is an hour: with the default
    /// minute, a busy machine's pauses between calls closed and reopened the one session, and
    /// `opened` counted 3 in a full suite at load 25.)
    @Test func aPoolOfOneHasNoListenerAndStillAnswers() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = TenantMigrator(connectionString: conninfo, family: try fixtureFamily("Catalogue"),
                                          pool: ConnectionPool.Configuration(maximumConnections: 1, idleTimeout: .seconds(3600)))
            try await migrator.createTenant("acme")
            for _ in 0..<5 { #expect(try await migrator.migrateIfNeeded(tenant: "acme").outcome == .alreadyCurrent) }
            let cache = try #require(migrator.currentTenants)
            #expect(!cache.isListening && cache.count == 0)
            #expect(migrator.connectionPool.statistics.opened == 1, "\(migrator.connectionPool.statistics)")
        }
    }
}
