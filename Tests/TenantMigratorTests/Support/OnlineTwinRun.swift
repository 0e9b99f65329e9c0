import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// An online migration of a tenant of `directory`'s family from `from` to `to`, on generated data
/// (NULLs included) while generated changes hit every table at the copy, after the build and
/// during catch-up, against an offline migration of a twin given the same final data: both end
/// with the same contents (ids of rows made per key included), or both fail (unless
/// `bothMustSucceed`). `label` names the case in failures; `afterwards` checks more when both succeeded.
func expectOnlineEndsAsOffline(
    directory: URL, from: String, to: String, policies: PolicyRegistry = PolicyRegistry(), label: String, bothMustSucceed: Bool = false,
    afterwards: (Connection, TenantMigrationResult) throws -> Void = { _, _ in }
) async throws {
    try await TestPostgres.withDatabaseURL { conninfo in
        let family = try ModelFamily.load(from: directory)
        let source = try #require(family.version(named: from))
        let base = try TenantMigrator(connectionString: conninfo, familyDirectory: directory, policies: policies, logger: .quiet("OnlineTwinRun"))
        let connection = try Connection(conninfo)
        _ = try await base.createTenant("online", version: from)
        _ = try await base.createTenant("twin", version: from)
        let seed = UInt64(truncatingIfNeeded: "\(label)\(from)\(to)".utf8.reduce(5381) { ($0 << 5) &+ $0 &+ UInt64($1) })
        var filling = TenantWorkload(version: source, schema: "tenant_online", seed: seed, firstID: 1)
        try filling.run(300, on: connection)
        try filling.replay(inSchema: "tenant_twin", on: connection)

        let workload = BackgroundWorkload(TenantWorkload(version: source, schema: "tenant_online", seed: seed ^ 0xFACE), conninfo: conninfo)
        let seen = Locked<Set<OnlinePhase>>([])
        var migrator = base
        migrator.settings.online.batchRows = 5
        migrator.settings.online.cutoverChanges = 1_000_000
        migrator.settings.online.checkpoint = workload.changingInEachPhase(20, seen: seen)
        // A catalog-only plan runs offline, in one short transaction: no app at work meanwhile.
        let catalogOnly = try OnlinePlan(base.plan(from: from, to: to)).kind == .catalogOnly
        if !catalogOnly { workload.resume() } else { try workload.drive(20) }
        let request = MigrationRequest(.move, to: to, allowDestructive: true, online: .on)
        let online: Result<TenantMigrationResult, any Error>
        do { online = .success(try await migrator.migrate(tenant: "online", request)) } catch { online = .failure(error) }
        workload.stop()
        let changes = try workload.result()
        try changes.replay(inSchema: "tenant_twin", on: connection)
        let offline: Result<TenantMigrationResult, any Error>
        do { offline = .success(try await base.migrate(tenant: "twin", MigrationRequest(.move, to: to, allowDestructive: true))) } catch { offline = .failure(error) }

        switch (online, offline) {
        case let (.success(result), .success):
            #expect(result.outcome == .migrated)
            let destination = try #require(family.version(named: to))
            // Rows made per key (BugTracker's statuses) too have offline's ids.
            let a = try tenantContents(schema: "tenant_online", version: destination, on: connection)
            let b = try tenantContents(schema: "tenant_twin", version: destination, on: connection)
            expectSameContents(a, b, "\(label) \(from) → \(to), ")
            // Online leaves each table's columns where offline leaves them (ShadowTables+ColumnOrder).
            #expect(
                try SchemaSnapshot.columnOrder(inSchema: "tenant_online", on: connection) == SchemaSnapshot.columnOrder(inSchema: "tenant_twin", on: connection),
                "\(label) \(from) → \(to): column order"
            )
            #expect(try connection.tenantVersions()["online"]?.version == to)
            if result.online?.mode != "catalog-only" { #expect(seen.value.contains(.cutoverSwapped)) }
            try afterwards(connection, result)
        case let (.failure(error), .failure):
            #expect(try connection.tenantVersions()["online"]?.version == from)
            if bothMustSucceed { Issue.record("\(label) \(from) → \(to): both failed: \(error)") }
        case let (.success, .failure(error)):
            Issue.record("\(label) \(from) → \(to): online succeeded, offline failed: \(error)")
        case let (.failure(error), .success):
            Issue.record("\(label) \(from) → \(to): online failed, offline succeeded: \(error)")
        }
        #expect(changes.applied.count > (catalogOnly ? 5 : 20), "\(changes.applied.count) changes kept, \(changes.refused) refused")
    }
}
