import ArgumentParser
import Foundation
import LibPQ
import RecipesPolicies
import TenantMigrator

/// `tenant-migrate-bench pool`: `migrateIfNeeded` on a tenant that is already current, cold (a new
/// session per call: the pool keeps nothing and nothing is cached, as before the pool), pooled (a
/// kept connection, one catalog query per call) and warm (answered from the cache of current
/// tenants, kept fresh by LISTEN).
struct PoolBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pool",
        abstract: "Time migrateIfNeeded on a current tenant: a new session per call, a pooled connection, and warm from the cache."
    )

    @Option(help: "Calls timed per variant (after 10 untimed ones).")
    var calls = 500

    @OptionGroup var family: FamilyOptions

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        guard calls > 0 else { throw ValidationError("--calls must be positive") }
        let logger = quietLogger()
        let database = try self.database.open("tm_bench_pool", kind: "fleet", logger: logger)
        defer { database.close() }
        print(try FleetBench.serverDescription(try Connection(database.conninfo, logger: logger)))
        func migrator(_ pool: ConnectionPool.Configuration) throws -> TenantMigrator {
            try TenantMigrator(connectionString: database.conninfo, familyDirectory: family.url,
                               policies: RecipesPolicies.registry, pool: pool, logger: logger)
        }
        let variants: [(String, ConnectionPool.Configuration)] = [
            ("cold: a new session per call", ConnectionPool.Configuration(idleTimeout: .zero, cachesCurrentTenants: false)),
            ("pooled: one catalog query per call", ConnectionPool.Configuration(cachesCurrentTenants: false)),
            ("warm: from the cache", ConnectionPool.Configuration()),
        ]
        try await migrator(variants[0].1).createTenant("acme")
        print("migrateIfNeeded(tenant:) on a current tenant, \(calls) calls each, one after another:")
        for (label, pool) in variants {
            let facade = try migrator(pool)
            for _ in 0..<10 { _ = try await facade.migrateIfNeeded(tenant: "acme") }
            var timings: [Duration] = []
            let clock = ContinuousClock()
            for _ in 0..<calls {
                let start = clock.now
                let result = try await facade.migrateIfNeeded(tenant: "acme")
                timings.append(clock.now - start)
                guard result.outcome == .alreadyCurrent else { throw BenchError("acme was not current") }
            }
            timings.sort()
            let statistics = facade.connectionPool.statistics
            print("  \(label.padding(toLength: 38, withPad: " ", startingAt: 0)) p50 \(Self.milliseconds(timings[timings.count / 2]))"
                  + "  p95 \(Self.milliseconds(timings[timings.count * 95 / 100]))"
                  + "  sessions opened \(statistics.opened)")
            await facade.shutdown()
        }
    }

    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.3f ms", duration.inMilliseconds)
    }
}
