import Foundation
import LibPQ
import PostgresTestSupport
@testable import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// A fleet run reads the catalog once: the tenants at the target are counted, and only the others'
/// rows reach the client; a run with nothing to do reads no tenant's row. Rows received are counted
/// by the connection itself.
@Suite("Fleet standing")
struct TenantCatalogFleetStandingTests {
    /// 2,000 tenants of Recipes at v3, three elsewhere (one pinned), and tenants of another family;
    /// catalog rows made with SQL (no schemas: nothing here looks at them).
    static func catalog(_ connection: Connection) throws -> TenantCatalog {
        let catalog = TenantCatalog()
        try catalog.install(on: connection)
        try connection.execute("""
            INSERT INTO tenant_migrator.tenants (name, schema_name, family, version, version_hash, pinned_version)
            SELECT 'c' || lpad(g::text, 4, '0'), 'tenant_c' || lpad(g::text, 4, '0'), 'Recipes', 'v3', 'hash', NULL FROM generate_series(1, 2000) g
            UNION ALL VALUES ('behind_a', 'tenant_behind_a', 'Recipes', 'v1', 'hash', NULL), ('behind_b', 'tenant_behind_b', 'Recipes', 'v2', 'hash', NULL),
                             ('held', 'tenant_held', 'Recipes', 'v1', 'hash', 'v1'), ('other', 'tenant_other', 'Notes', 'v1', 'hash', NULL),
                             ('c_x1', 'tenant_c_x1', 'Recipes', 'v3', 'hash', NULL), ('cax1', 'tenant_cax1', 'Recipes', 'v1', 'hash', NULL)
            """)
        try connection.execute("ANALYZE tenant_migrator.tenants")
        return catalog
    }

    @Test func onlyTheTenantsNotAtTheTargetAreRead() async throws {
        try await TestPostgres.withDatabase { connection in
            let catalog = try Self.catalog(connection)
            connection.resetStatistics()
            let standing = try catalog.fleetStanding(family: "Recipes", target: "v3", selection: .all, listingCurrent: false, on: connection)
            #expect(standing.currentCount == 2001)
            #expect(standing.elsewhere.map(\.name.rawValue) == ["behind_a", "behind_b", "cax1", "held"])
            #expect(standing.elsewhere.first { $0.name.rawValue == "held" }?.isPinned == true)
            #expect(standing.currentNames == nil)
            // One round trip; the count's row and the four others, not 2,000 rows.
            #expect(connection.statistics.roundTrips == 1)
            #expect(connection.statistics.rowsReceived == 1 + 4)

            // Listed when asked: the names only.
            let listed = try catalog.fleetStanding(family: "Recipes", target: "v3", selection: .all, listingCurrent: true, on: connection)
            #expect(listed.currentNames?.count == 2001 && listed.currentNames?.first == "c0001")
        }
    }

    @Test func theSelectionFiltersOnTheServerWithUnderscoresTakenLiterally() async throws {
        try await TestPostgres.withDatabase { connection in
            let catalog = try Self.catalog(connection)
            // `c_x*`: the underscore is a character of the name, not LIKE's any character (cax1 is not selected).
            let pattern = try catalog.fleetStanding(family: "Recipes", target: "v3", selection: TenantSelection(pattern: "c_x*"), listingCurrent: true, on: connection)
            #expect(pattern.currentNames == ["c_x1"] && pattern.elsewhere.isEmpty)
            let question = try catalog.fleetStanding(family: "Recipes", target: "v3", selection: TenantSelection(pattern: "c?x?"), listingCurrent: true, on: connection)
            #expect(question.currentNames == ["c_x1"] && question.elsewhere.map(\.name.rawValue) == ["cax1"])
            let named = try catalog.fleetStanding(family: "Recipes", target: "v3", selection: TenantSelection(names: ["behind_b", "c0002", "ghost"]),
                                                  listingCurrent: true, on: connection)
            #expect(named.currentNames == ["c0002"] && named.elsewhere.map(\.name.rawValue) == ["behind_b"] && named.currentCount == 1)
            #expect(try catalog.fleetStanding(family: "Notes", target: "v3", selection: .all, listingCurrent: false, on: connection).elsewhere.map(\.name.rawValue) == ["other"])
        }
    }

    /// Through the facade: a no-op deploy counts the tenants and lists none, unless asked to.
    @Test func aNoOpFleetRunCountsTheCurrentTenantsAndListsThemOnlyWhenAsked() async throws {
        try await TestPostgres.withRecipesMigrator { conninfo, migrator in
            let created = try await migrator.createTenants(["alpha", "beta", "gamma"], jobs: 2)
            try #require(created.migrated == 3)
            let counted = try await migrator.moveAll(.migrate(), listingCurrentTenants: false)
            #expect(counted.skipped == 3 && counted.entries.isEmpty && counted.unlistedCurrent == 3 && counted.succeeded)
            let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(counted)) as? [String: Any]
            #expect((json?["summary"] as? [String: Int])?["total"] == 3)
            #expect(json?["unlistedCurrent"] as? Int == 3)
            let decoded = try JSONDecoder().decode(FleetReport.self, from: JSONEncoder().encode(counted))
            #expect(decoded.skipped == 3)

            let listed = try await migrator.migrateAll()
            #expect(listed.skipped == 3 && listed.entries.map(\.tenant) == ["alpha", "beta", "gamma"] && listed.unlistedCurrent == 0)
        }
    }
}
