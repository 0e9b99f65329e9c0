import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

@Suite("Tenant pins")
struct TenantMigratorPinsTests {
    /// The operations of `tenant`'s history, oldest first.
    func operations(_ tenant: String, _ connection: Connection) throws -> [String] {
        try TenantCatalog().history(of: TenantName(tenant), on: connection).map(\.operation.rawValue)
    }

    @Test func aRolledBackTenantSurvivesMigrateAllAndMigrateIfNeededUntilMigratedByName() async throws {
        try await TestPostgres.withRecipesMigrator { conninfo, migrator in
            try await migrator.createTenant("acme")
            try await migrator.createTenant("globex", version: "v1")

            let down = try await migrator.rollback(tenant: "acme", to: "v1", allowDestructive: true)
            #expect(down.outcome == .migrated)
            var acme = try #require(try await migrator.tenant(named: "acme"))
            #expect(acme.version == "v1" && acme.pinnedVersion == "v1" && acme.pinnedReason == "rolled back" && acme.pinnedAt != nil)

            // The deploy moves globex and leaves acme, reported as pinned; that is no failure.
            let report = try await migrator.migrateAll()
            let outcomes = Dictionary(uniqueKeysWithValues: report.entries.map { ($0.tenant, $0.outcome) })
            #expect(outcomes == ["acme": .pinned, "globex": .migrated])
            #expect(report.pinned == 1 && report.migrated == 1 && report.succeeded)
            let summary = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any]
            #expect((summary?["summary"] as? [String: Int])?["pinned"] == 1)

            // The app's next request: pinned, still at v1.
            let request = try await migrator.migrateIfNeeded(tenant: "acme")
            #expect(request.outcome == .pinned && request.fromVersion == "v1")
            #expect(try await migrator.tenant(named: "acme")?.version == "v1")

            // Named alone, it moves, and the pin is gone.
            let up = try await migrator.migrate(tenant: "acme")
            #expect(up.outcome == .migrated && up.fromVersion == "v1" && up.toVersion == "v3")
            acme = try #require(try await migrator.tenant(named: "acme"))
            #expect(acme.version == "v3" && acme.pinnedVersion == nil && acme.pinnedReason == nil && acme.pinnedAt == nil)
            #expect(try await migrator.migrateIfNeeded(tenant: "acme").outcome == .alreadyCurrent)

            let connection = try Connection(conninfo)
            #expect(try operations("acme", connection) == ["create", "rollback", "pin", "migrate", "unpin"])
            let pins = try TenantCatalog().history(of: TenantName("acme"), on: connection).filter { $0.operation == .pin || $0.operation == .unpin }
            #expect(pins.map(\.fromVersion) == [nil, "v1"] && pins.map(\.toVersion) == ["v1", nil])
            #expect(pins.allSatisfy { $0.outcome == .succeeded })
        }
    }

    @Test func respectingAPinWritesNothing() async throws {
        try await TestPostgres.withRecipesMigrator { conninfo, migrator in
            try await migrator.createTenant("acme", version: "v1")
            try await migrator.pin(tenant: "acme")
            let connection = try Connection(conninfo)
            let before = try connection.scalar("SELECT updated_at::text FROM tenant_migrator.tenants WHERE name = 'acme'", as: String.self)

            // As a fleet worker does when the tenant was pinned after the fleet's query.
            let result = try migrator.executor.migrate(TenantName("acme"), .migrate(pins: .respect), on: connection)
            #expect(result.outcome == .pinned && result.fromVersion == "v1" && result.toVersion == "v3")
            #expect(try connection.scalar("SELECT updated_at::text FROM tenant_migrator.tenants WHERE name = 'acme'", as: String.self) == before)
            #expect(try operations("acme", connection) == ["create", "pin"])
            // A several-tenant command respects pins too; a dry run reports them.
            #expect(try await migrator.migrate(tenant: "acme", pins: .respect).outcome == .pinned)
            let dryRun = try await migrator.migrateAll(mode: .dryRun)
            #expect(dryRun.entries.map(\.outcome) == [.pinned])
        }
    }

    @Test func pinAtAnotherVersionMovesThenPinsUnderTheConsentRule() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            var migrator = try makeRecipesMigrator(conninfo)
            try await migrator.createTenant("acme", version: "v1")

            let moved = try await migrator.pin(tenant: "acme", at: "v2", reason: "waiting for the v3 fix")
            #expect(moved.outcome == .migrated && moved.fromVersion == "v1" && moved.toVersion == "v2")
            var acme = try #require(try await migrator.tenant(named: "acme"))
            #expect(acme.version == "v2" && acme.pinnedVersion == "v2" && acme.pinnedReason == "waiting for the v3 fix")
            #expect(try await migrator.migrateAll().entries.map(\.outcome) == [.pinned])

            // Down to v1 loses prepMinutes and narrows servings once nothing is archived: consent needed,
            // and without it nothing changes.
            migrator.archives = false
            if let error = await migrationFailure("a lossy move must need allowDestructive", {
                try await migrator.pin(tenant: "acme", at: "v1")
            }) {
                #expect(error.refusedChanges != nil, "\(error)")
            }
            acme = try #require(try await migrator.tenant(named: "acme"))
            #expect(acme.version == "v2" && acme.pinnedVersion == "v2" && acme.pinnedReason == "waiting for the v3 fix")

            try await migrator.pin(tenant: "acme", at: "v1", allowDestructive: true)
            acme = try #require(try await migrator.tenant(named: "acme"))
            #expect(acme.version == "v1" && acme.pinnedVersion == "v1" && acme.pinnedReason == nil)

            // Where it is: no move, a new reason.
            let stay = try await migrator.pin(tenant: "acme", reason: "audit")
            #expect(stay.outcome == .alreadyCurrent)
            #expect(try await migrator.tenant(named: "acme")?.pinnedReason == "audit")

            let connection = try Connection(conninfo)
            #expect(try operations("acme", connection) == ["create", "migrate", "pin", "rollback", "pin", "pin"])
            let unchanged = migrator
            await #expect(throws: TenantMigratorError.self) { try await unchanged.pin(tenant: "nobody") }
            await #expect(throws: TenantMigratorError.self) { try await unchanged.pin(tenant: "acme", at: "v9") }
        }
    }

    @Test func unpinLetsTheNextRequestMoveTheTenant() async throws {
        try await TestPostgres.withRecipesMigrator { conninfo, migrator in
            try await migrator.createTenant("acme")
            _ = try await migrator.rollback(tenant: "acme", to: "v2")
            #expect(try await migrator.migrateIfNeeded(tenant: "acme").outcome == .pinned)

            #expect(try await migrator.unpin(tenant: "acme"))
            #expect(try await migrator.unpin(tenant: "acme") == false)
            #expect(try await migrator.tenant(named: "acme")?.pinnedVersion == nil)
            let result = try await migrator.migrateIfNeeded(tenant: "acme")
            #expect(result.outcome == .migrated && result.toVersion == "v3")
            #expect(try operations("acme", try Connection(conninfo)) == ["create", "rollback", "pin", "unpin", "migrate"])
            await #expect(throws: TenantMigratorError.self) { try await migrator.unpin(tenant: "nobody") }
        }
    }

    @Test func rollbackAllPinsEveryTenantItMovesAndLeavesPinnedOnes() async throws {
        try await TestPostgres.withRecipesMigrator { conninfo, migrator in
            _ = try await migrator.createTenants(["a1", "a2", "a3"])
            _ = try await migrator.rollback(tenant: "a1", to: "v2")

            let down = try await migrator.rollbackAll(to: "v1", allowDestructive: true)
            #expect(down.entries.map(\.outcome) == [.pinned, .migrated, .migrated])
            let records = try await migrator.tenants()
            #expect(records.map(\.version) == ["v2", "v1", "v1"])
            #expect(records.map(\.pinnedVersion) == ["v2", "v1", "v1"])

            // A selection of named tenants, a pattern or a canary batch: all respect the pins.
            #expect(try await migrator.migrateAll(selection: TenantSelection(names: ["a2", "a3"])).pinned == 2)
            #expect(try await migrator.migrateAll(selection: TenantSelection(pattern: "a*", limit: 1)).entries.map(\.outcome) == [.pinned, .pinned, .pinned])
            #expect(try await migrator.tenants().map(\.version) == ["v2", "v1", "v1"])
        }
    }

    @Test func installUpgradesACatalogFromBeforePinsWhichReadsStillUnderstand() async throws {
        try await TestPostgres.withRecipesMigrator { conninfo, migrator in
            try await migrator.createTenant("acme", version: "v1")
            // The catalog as the previous release left it: version 1, no pin columns.
            let connection = try Connection(conninfo)
            try connection.fixtureScript("""
                ALTER TABLE tenant_migrator.tenants DROP COLUMN pinned_version, DROP COLUMN pinned_at, DROP COLUMN pinned_reason;
                UPDATE tenant_migrator.catalog_info SET value = '1' WHERE key = 'catalog_version'
                """)
            func pinColumns() throws -> Int {
                try connection.scalar(
                    "SELECT count(*)::int FROM pg_attribute WHERE attrelid = 'tenant_migrator.tenants'::regclass AND attname LIKE 'pinned%' AND NOT attisdropped",
                    as: Int.self
                )
            }

            // Read-only calls read it as it is, unpinned, and change nothing.
            #expect(try await migrator.tenants().map(\.pinnedVersion) == [nil])
            #expect(try await migrator.status().map(\.record.version) == ["v1"])
            #expect(try TenantCatalog().installedVersion(on: connection) == 1)
            #expect(try pinColumns() == 0)
            // A trial reads the tenant inside its transaction, and still writes nothing.
            #expect(try await migrator.migrate(tenant: "acme", mode: .dryRun).outcome == .migrated)
            #expect(try TenantCatalog().installedVersion(on: connection) == 1)
            #expect(try pinColumns() == 0)

            // The first write call upgrades it in place.
            #expect(try await migrator.migrateIfNeeded(tenant: "acme").outcome == .migrated)
            #expect(try TenantCatalog().installedVersion(on: connection) == 2)
            #expect(try pinColumns() == 3)
            try TenantCatalog().install(on: connection)
            #expect(try TenantCatalog().installedVersion(on: connection) == 2)
            #expect(try await migrator.tenant(named: "acme")?.version == "v3")

            // A catalog labelled 1 that already has some of the columns (a half-finished upgrade) upgrades too.
            try connection.fixtureScript("""
                ALTER TABLE tenant_migrator.tenants DROP COLUMN pinned_reason;
                UPDATE tenant_migrator.catalog_info SET value = '1' WHERE key = 'catalog_version'
                """)
            try TenantCatalog().install(on: connection)
            #expect(try pinColumns() == 3)
            _ = try await migrator.rollback(tenant: "acme", to: "v2")
            #expect(try await migrator.tenant(named: "acme")?.pinnedReason == "rolled back")

            // Dropping a tenant is a write too: it upgrades a catalog of version 1 first.
            try connection.fixtureScript("""
                ALTER TABLE tenant_migrator.tenants DROP COLUMN pinned_version, DROP COLUMN pinned_at, DROP COLUMN pinned_reason;
                UPDATE tenant_migrator.catalog_info SET value = '1' WHERE key = 'catalog_version'
                """)
            try await migrator.dropTenant("acme", confirmed: true)
            #expect(try await migrator.tenant(named: "acme") == nil)
            #expect(try TenantCatalog().installedVersion(on: connection) == 2)
        }
    }
}
