import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// A `distinct:` mapping run again after a way down archived the rows it made (a Status per
/// distinct status, ``BracedArchiveFamily``) gives each key back the id it had, offline. Online,
/// catch-up would number the keys the app adds or moves by their first rows instead: the
/// generated online round trips (`OnlineRoundTripPropertyTests`, family 25 of seed 4242) lost a
/// key and the links of rows the app never touched. Until catch-up keeps those ids, such a tenant
/// is refused online before anything is touched, and migrates offline as before.
@Suite("Online runs refuse a distinct mapping run again over its archived rows", .serialized)
struct OnlineRunDistinctRerunTests {
    typealias Family = BracedArchiveFamily

    @Test func aTenantWhoseArchiveKeepsTheRowsOfADistinctMappingIsRefusedOnline() async throws {
        let family = try OnlineFamilyDirectory("Issues", versions: Family.versions, mappings: Family.mappings)
        defer { family.remove() }
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: family.directory, logger: .quiet("OnlineDistinctRerun"))
            let connection = try Connection(conninfo)
            _ = try await migrator.createTenant("acme", version: "v1")
            for statement in Family.seed(.text, "tenant_acme") { try connection.execute(unsafeSQL: statement) }
            // Up once online (no archived Status rows yet: it runs), down offline (the Statuses archived whole).
            let first = try await migrator.migrate(tenant: "acme", MigrationRequest(.move, to: "v2", allowDestructive: true, online: .on))
            #expect(first.outcome == .migrated && first.online?.mode == "shadow", "\(String(describing: first.online)) \(first.error ?? "")")
            let statuses = try connection.column(String(format: Family.statuses, "tenant_acme"), as: String.self)
            let down = try await migrator.migrate(tenant: "acme", MigrationRequest(.move, to: "v1", allowDestructive: true))
            #expect(down.outcome == .migrated, "\(down.error ?? "")")

            await #expect {
                try await migrator.migrate(tenant: "acme", MigrationRequest(.move, to: "v2", allowDestructive: true, online: .on))
            } throws: { error in
                "\(error)".contains("the distinct mapping of step v1 → v2 makes the rows of status again, and the archive keeps their ids from the way down v2 → v1")
                    && "\(error)".contains("Migrate it offline")
            }
            #expect(try connection.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 'acme'", as: String.self) == "v1", "nothing was touched")
            try OnlineTwins.expectNoRunSchemaLeft(connection)
            // Offline, each Status comes back with the id it had.
            let again = try await migrator.migrate(tenant: "acme", MigrationRequest(.move, to: "v2", allowDestructive: true))
            #expect(again.outcome == .migrated, "\(again.error ?? "")")
            #expect(try connection.column(String(format: Family.statuses, "tenant_acme"), as: String.self) == statuses)
        }
    }
}
