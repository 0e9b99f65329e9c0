import LibPQ
import Foundation
import PostgresTestSupport
import Testing

/// Issue 35: `verify --strict` says what it is for when a normally migrated tenant differs only
/// in its columns' order, and what puts the order back.
@Suite("verify --strict")
struct VerifyCommandTests {
    @Test func aColumnOrderDriftSaysWhatStrictIsFor() async throws {
        let recipes = PackagePaths.migrationFamily("Recipes")
        try await TestPostgres.withDatabaseURL { conninfo in
            #expect(try await TenantMigrateExecutable.run(["tenant", "create", "acme", "--version", "v1"], database: conninfo, migrations: recipes).status == 0)
            #expect(try await TenantMigrateExecutable.run(["migrate", "--tenant", "acme", "--to", "v2"], database: conninfo, migrations: recipes).status == 0)
            let plain = try await TenantMigrateExecutable.run(["verify"], database: conninfo, migrations: recipes)
            #expect(plain.status == 0, "\(plain.stdout)")
            // v1 → v2 adds prepMinutes at the end of recipe: a fresh v2 tenant has it in model order.
            let strict = try await TenantMigrateExecutable.run(["verify", "--strict"], database: conninfo, migrations: recipes)
            #expect(strict.status == 2, "\(strict.stdout)")
            #expect(strict.stdout.contains("only the order of columns differs"), "\(strict.stdout)")
            #expect(strict.stdout.contains("apps that read columns by position"), "\(strict.stdout)")
            #expect(strict.stdout.contains("docs/Archive.md"), "\(strict.stdout)")
        }
    }

    /// And it offers the rebuild: `verify --strict --reorder` puts the columns back in model order,
    /// every value kept, and the tenant then passes `verify --strict`.
    @Test func strictOffersTheRebuildAndReorderDoesIt() async throws {
        let recipes = PackagePaths.migrationFamily("Recipes")
        try await TestPostgres.withDatabaseURL { conninfo in
            #expect(try await TenantMigrateExecutable.run(["tenant", "create", "acme", "--version", "v1"], database: conninfo, migrations: recipes).status == 0)
            let connection = try Connection(conninfo)
            try connection.execute("INSERT INTO tenant_acme.recipe (name) VALUES ('Soup'), ('Stew')")
            #expect(try await TenantMigrateExecutable.run(["migrate", "--tenant", "acme", "--to", "v2"], database: conninfo, migrations: recipes).status == 0)
            let before = try connection.rows("SELECT to_jsonb(r) FROM tenant_acme.recipe AS r ORDER BY id")
            let strict = try await TenantMigrateExecutable.run(["verify", "--strict"], database: conninfo, migrations: recipes)
            #expect(strict.status == 2 && strict.stdout.contains("verify --strict --reorder --tenant acme"), "\(strict.stdout)")

            let reorder = try await TenantMigrateExecutable.run(["verify", "--strict", "--reorder"], database: conninfo, migrations: recipes)
            #expect(reorder.status == 0, "\(reorder.stdout)\n\(reorder.stderr)")
            #expect(reorder.stdout.contains("acme: put the columns of recipe back in model order"), "\(reorder.stdout)")
            #expect(try connection.rows("SELECT to_jsonb(r) FROM tenant_acme.recipe AS r ORDER BY id") == before, "every value kept")
            #expect(try await TenantMigrateExecutable.run(["verify", "--strict"], database: conninfo, migrations: recipes).status == 0)
            #expect(try await TenantMigrateExecutable.run(["verify", "--reorder"], database: conninfo, migrations: recipes).status != 0)
        }
    }
}
