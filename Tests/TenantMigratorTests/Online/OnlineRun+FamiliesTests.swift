import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Online migrations of the engine's fixture families, both ways, on generated data (NULLs
/// included) while generated changes hit every table: each ends exactly where an offline migration
/// of the final data ends, or fails where it fails. The families cover every mode: catalog-only
/// (Renames), caught up in a shadow (renames, new and dropped columns and tables, type changes,
/// backfills, archived drops, discriminator renames, foreign keys, mapped steps), and writes-wait
/// (link and row moves between tables); BugTracker's distinct mapping is caught up by key.
@Suite("Online runs of every kind of step", .serialized)
struct OnlineRunFamiliesTests {
    static let cases: [(family: String, from: String, to: String)] = [
        ("Entities", "v1", "v2"), ("Entities", "v2", "v1"), ("EveryKind", "v2", "v1"), ("NameClash", "v1", "v3"), ("NameClash", "v3", "v1"),
        ("Notes", "v1", "v2"), ("Notes", "v2", "v1"), ("Optionality", "v1", "v2"), ("Optionality", "v2", "v1"), ("Properties", "v1", "v2"),
        ("Properties", "v2", "v1"), ("Renames", "v1", "v2"), ("Skip", "v1", "v3"), ("Skip", "v3", "v1"), ("SubEntityMoves", "v1", "v2"),
        ("SubEntityRename", "v1", "v2"), ("Tracker", "v2", "v1"), ("Widening", "v1", "v3"), ("Widening", "v3", "v1"), ("DeclaredLoss", "v1", "v2"),
        ("LossyNames", "v1", "v2"), ("ToMany", "v1", "v2"), ("ToMany", "v2", "v1"), ("Posts", "v1", "v2"), ("FlipKey", "v1", "v2"),
        ("BugTracker", "v2", "v3"), ("BugTracker", "v1", "v3"), ("BugTracker", "v3", "v2"), ("SerialKeys", "v1", "v2"), ("SerialKeys", "v2", "v1"),
    ]


    @Test(arguments: cases)
    func anOnlineMigrationEndsAsAnOfflineOne(family name: String, from: String, to: String) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let directory = PackagePaths.root.appendingPathComponent("Tests/MigrationEngineTests/Fixtures/\(name)")
            let family = try ModelFamily.load(from: directory)
            let source = try #require(family.version(named: from))
            let base = try TenantMigrator(connectionString: conninfo, familyDirectory: directory, logger: .quiet("OnlineFamilies"))
            let connection = try Connection(conninfo)
            _ = try await base.createTenant("online", version: from)
            _ = try await base.createTenant("twin", version: from)
            let seed = UInt64(truncatingIfNeeded: "\(name)\(from)\(to)".utf8.reduce(5381) { ($0 << 5) &+ $0 &+ UInt64($1) })
            var filling = TenantWorkload(version: source, schema: "tenant_online", seed: seed, firstID: 1)
            try filling.run(300, on: connection)
            try filling.replay(inSchema: "tenant_twin", on: connection)

            let workload = BackgroundWorkload(TenantWorkload(version: source, schema: "tenant_online", seed: seed ^ 0xFACE), conninfo: conninfo)
            let seen = Locked<Set<OnlinePhase>>([])
            var migrator = base
            migrator.settings.online.batchRows = 5
            migrator.settings.online.cutoverChanges = 1_000_000
            migrator.settings.online.checkpoint = { checkpoint in
                guard seen.withLock({ $0.insert(checkpoint.phase).inserted }) else { return }
                switch checkpoint.phase {
                case .copying, .built:
                    workload.stop()
                    try workload.drive(20)
                    workload.resume()
                case .catchingUp:
                    workload.stop()
                    try workload.drive(20)
                default:
                    break
                }
            }
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
                expectSameContents(a, b, "\(name) \(from) → \(to), ")
                #expect(try connection.tenantVersions()["online"]?.version == to)
                if result.online?.mode != "catalog-only" { #expect(seen.value.contains(.cutoverSwapped)) }
            case (.failure, .failure):
                #expect(try connection.tenantVersions()["online"]?.version == from)
            case let (.success, .failure(error)):
                Issue.record("\(name) \(from) → \(to): online succeeded, offline failed: \(error)")
            case let (.failure(error), .success):
                Issue.record("\(name) \(from) → \(to): online failed, offline succeeded: \(error)")
            }
            #expect(changes.applied.count > (catalogOnly ? 5 : 20), "\(changes.applied.count) changes kept, \(changes.refused) refused")
        }
    }
}
