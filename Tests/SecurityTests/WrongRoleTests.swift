import Foundation
import PostgresTestSupport
import Testing

/// A new user's mistake: connecting as a role that is not the migrator's (the app role, a login of
/// their own) to a database whose catalog the migrator made. The command refuses the catalog, as
/// it must, and says so in a few words with SQLSTATE 42501, naming the role that owns it.
@Suite("Connecting as a role that is not the catalog's")
struct WrongRoleTests {
    @Test func theRefusalNamesTheCatalogsOwnerAndCarriesItsSQLState() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let recipes = PackagePaths.migrationFamily("Recipes")
            let created = try await TenantMigrateExecutable.run(["tenant", "create", "a1", "--version", "v1"], database: setup.migrator.url, migrations: recipes)
            #expect(created.status == 0, "\(created.stderr)")

            let json = try await TenantMigrateExecutable.run(["status", "--json"], database: setup.app.url, migrations: recipes)
            let error = (try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["error"] as? [String: Any]
            #expect(json.status == 1 && error?["sqlState"] as? String == "42501", "\(json.stdout)")
            #expect((error?["message"] as? String)?.hasPrefix("the tenant catalog tenant_migrator ") == true, "\(json.stdout)")
        }
    }
}
