import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Which tenants run how: a catalog-only plan in one short transaction, small tenants offline
/// with `--online-above`, and tenants online mode cannot serve refused before anything is touched.
@Suite("Online run modes")
struct OnlineRunModesTests {
    @Test func aCatalogOnlyPlanRunsInOneShortTransaction() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let directory = PackagePaths.root.appendingPathComponent("Tests/MigrationEngineTests/Fixtures/Renames")
            var migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: directory, logger: .quiet("OnlineModes"))
            let checkpoints = Locked(0)
            migrator.settings.online.checkpoint = { _ in checkpoints.withLock { $0 += 1 } }
            _ = try await migrator.createTenant("acme", version: "v1")
            let result = try await migrator.migrate(tenant: "acme", .migrate(to: "v2", online: .on))
            #expect(result.outcome == .migrated)
            #expect(result.online?.mode == "catalog-only")
            #expect(checkpoints.value == 0, "no shadow was built")
            #expect(try Connection(conninfo).userSchemas().allSatisfy { !$0.hasPrefix("_tm_") })
        }
    }

    /// A plan online mode runs offline that fails (here the catalog-only rename meets a table of
    /// the new name) fails once: its error says it once, with the step and SQLSTATE, and the
    /// catalog records one failure. (The online run took the offline path's failure for a cause
    /// of its own: "failed … Cause: tenant acme: migration v1 → v2 failed …", recorded twice.)
    @Test func aPlanRunOfflineThatFailsFailsOnceAndIsRecordedOnce() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let directory = PackagePaths.root.appendingPathComponent("Tests/MigrationEngineTests/Fixtures/Renames")
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: directory, logger: .quiet("OnlineModes"))
            _ = try await migrator.createTenant("acme", version: "v1")
            let connection = try Connection(conninfo)
            try connection.execute("CREATE TABLE tenant_acme.book (id bigint)")
            let error = await #expect(throws: TenantMigrationError.self) { try await migrator.migrate(tenant: "acme", .migrate(to: "v2", online: .on)) }
            let text = error.map { "\($0)" } ?? ""
            #expect(text.components(separatedBy: "failed").count == 2 && text.components(separatedBy: "Cause:").count == 2, "\(text)")
            #expect(text.contains("in step v1 → v2: inferred") && text.contains("42P07"), "\(text)")
            if case .stepFailed? = error?.reason {} else { Issue.record("not a step's failure: \(text)") }
            #expect(error?.sqlState?.rawValue == "42P07", "\(text)")
            let history = try TenantCatalog().history(of: TenantName("acme"), on: connection)
            #expect(history.map(\.outcome) == [.succeeded, .failed], "\(history)")
        }
    }

    @Test func onlineAboveRunsTheSmallTenantsOfAFleetOfflineAndSaysSo() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (connection, lifecycle) = try installedLifecycle(conninfo)
            for (name, recipes) in [("small", 5), ("big", 200), ("unanalyzed", 200)] {
                try lifecycle.create(try tenant(name), version: "v1", on: connection)
                try connection.loadRecipes(tenants: [name], recipes: recipes)
            }
            // `big` has planner statistics (800 rows); `unanalyzed` has none, so its rows are counted.
            try connection.execute("ANALYZE tenant_big.recipe")
            try connection.execute("ANALYZE tenant_big.recipe_ingredient")
            let (entries, _) = try await migrateJSONEntries(["migrate", "--all", "--to", "v2", "--online-above", "300"], database: conninfo)
            let modes = Dictionary(uniqueKeysWithValues: entries.map { ($0["tenant"] as? String ?? "?", ($0["online"] as? [String: Any])?["mode"] as? String) })
            #expect(modes == ["small": "offline", "big": "shadow", "unanalyzed": "shadow"])
            func estimate(_ tenant: String) -> Int? {
                entries.first { $0["tenant"] as? String == tenant }.flatMap { ($0["online"] as? [String: Any])?["estimatedRows"] as? Int }
            }
            #expect(estimate("small") == 20)
            // The tenants that ran online say what chose it too: 800 rows by the statistics, and
            // the unanalyzed one's rows counted until past the threshold.
            #expect(estimate("big") == 800)
            #expect((estimate("unanalyzed") ?? 0) > 300, "\(entries)")
            #expect(try connection.tenantVersions().values.allSatisfy { $0.version == "v2" })

            let text = try await TenantMigrateExecutable.run(["migrate", "--all", "--to", "v3", "--online-above", "300"], database: conninfo,
                                                             migrations: URL(fileURLWithPath: migrationsDirectory))
            #expect(text.status == 0, "\(text.stderr)")
            #expect(text.stdout.contains("MODE"), "\(text.stdout)")
            // v2 → v3 with the family's row-local policies: in a shadow.
            #expect(text.stdout.split(separator: "\n").contains { $0.hasPrefix("big") && $0.contains("shadow") }, "\(text.stdout)")
            #expect(text.stdout.split(separator: "\n").contains { $0.hasPrefix("small") && $0.contains("offline") }, "\(text.stdout)")
        }
    }

    /// Issue 33: a tenant that ran online with plain `--online` (no threshold to weigh it against)
    /// said nothing of its size (`estimatedRows` was null); it reports the same estimate as with
    /// `--online-above`.
    @Test func plainOnlineReportsTheTenantsEstimatedRows() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try recipesTenant("big", recipes: 200, conninfo)
            try connection.execute("ANALYZE tenant_big.recipe")
            try connection.execute("ANALYZE tenant_big.recipe_ingredient")
            let (entries, stdout) = try await migrateJSONEntries(["migrate", "--tenant", "big", "--to", "v2", "--online"], database: conninfo)
            let online = entries.first?["online"] as? [String: Any]
            #expect(online?["mode"] as? String == "shadow", "\(stdout)")
            #expect(online?["estimatedRows"] as? Int == 800, "\(stdout)")
        }
    }

    /// What online mode cannot serve is refused before anything is touched, with the reason.
    @Test(arguments: ["drift", "trigger", "owner"])
    func aTenantOnlineModeCannotServeIsRefused(_ problem: String) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try recipesTenant("acme", version: "v2", recipes: 5, conninfo)
            let expected: String
            switch problem {
            case "drift":
                try connection.execute("ALTER TABLE tenant_acme.recipe ADD COLUMN notes text")
                expected = "differ from its model version v2"
            case "trigger":
                try connection.execute("CREATE FUNCTION tenant_acme.audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$")
                try connection.execute("CREATE TRIGGER audit AFTER UPDATE ON tenant_acme.recipe FOR EACH ROW EXECUTE FUNCTION tenant_acme.audit()")
                expected = "trigger recipe.audit is not defined by the model"
            default:
                let role = "tm_owner_" + (try connection.scalar("SELECT substr(current_database(), 9)", as: String.self))
                try connection.execute(unsafeSQL: "CREATE ROLE \(role)")
                try connection.execute(unsafeSQL: "ALTER TABLE tenant_acme.recipe OWNER TO \(role)")
                expected = "table recipe is owned by \(role)"
            }
            let migrator = try makeRecipesMigrator(conninfo)
            do {
                _ = try await migrator.migrate(tenant: "acme", .migrate(to: "v3", online: .on))
                Issue.record("\(problem): migrated")
            } catch {
                #expect("\(error)".contains(expected), "\(error)")
                #expect("\(error)".contains("cannot migrate online"), "\(error)")
            }
            #expect(try connection.tenantVersions()["acme"]?.version == "v2")
            #expect(try connection.userSchemas().allSatisfy { !$0.hasPrefix("_tm_") })
            if problem == "owner" {
                try connection.execute("ALTER TABLE tenant_acme.recipe OWNER TO CURRENT_USER")
                try connection.execute(unsafeSQL: "DROP ROLE tm_owner_" + (try connection.scalar("SELECT substr(current_database(), 9)", as: String.self)))
            }
        }
    }
}
