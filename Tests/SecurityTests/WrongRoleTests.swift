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

            // In a few words, not each of the catalog's objects with its owner.
            let said = "Error: the tenant catalog tenant_migrator and everything in it belong to role \(setup.migrator.role), not to the role "
                + "this command connected as (42501), so nothing was read from it or written to it. If \(setup.migrator.role) is the "
                + "migrator role, connect as \(setup.migrator.role); if it is not, have a superuser inspect the schema, or name another "
                + "catalog with --catalog\n"
            for arguments in [["status"], ["migrate", "--all"], ["tenant", "create", "a2"]] {
                let output = try await TenantMigrateExecutable.run(arguments, database: setup.app.url, migrations: recipes)
                #expect(output.status == 1 && output.stderr == said, "\(arguments): \(output.stderr)")
            }
        }
    }
}
