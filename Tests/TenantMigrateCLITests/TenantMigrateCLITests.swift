import ArgumentParser
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrateCLI
import TenantMigrator
import Testing
import TypedSQL

/// The repository's root, found from this file.
private let repositoryRoot = PackagePaths.root
private let migrations = repositoryRoot.appendingPathComponent("Migrations").path
private let fixtures = repositoryRoot.appendingPathComponent("Tests/TenantMigratorTests/Fixtures").path

/// The runner these tests run in-process: `tenant-migrate` with the Recipes policies (its mapping
/// models name them). A type of the tests' own, so that no suite configures another's.
struct CLIRunner: TenantMigrateRunner {
    static let runnerConfiguration = TenantMigrateConfiguration(commandName: "tenant-migrate", policies: RecipesPolicies.registry)
}

/// Runs `tenant-migrate <arguments>` in-process, as the executable would.
func run(_ arguments: [String]) async throws {
    var command = try CLIRunner.parseAsRoot(arguments)
    if var async = command as? AsyncParsableCommand {
        try await async.run()
    } else {
        try command.run()
    }
}

/// Runs a command against the test database and the Recipes family.
private func run(_ conninfo: String, _ arguments: [String], migrationsDirectory: String = migrations) async throws {
    try await run(arguments + ["--database-url", conninfo, "--migrations", migrationsDirectory])
}

/// The error a command throws, as ArgumentParser would print it.
private func message(of error: any Error) -> String {
    CLIRunner.message(for: error)
}

/// The version the catalog records for `tenant`.
func version(of tenant: String, _ connection: Connection) throws -> String? {
    try connection.execute("SELECT version FROM tenant_migrator.tenants WHERE name = $1", [tenant]).first?.decode(String.self, at: 0)
}

@Suite("tenant-migrate commands")
struct TenantMigrateCLITests {
    @Test func tenantCreateListStatusVerifyAndDrop() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            try await run(conninfo, ["tenant", "create", "acme", "globex", "--version", "v1"])
            try await run(conninfo, ["tenant", "list"])
            try await run(conninfo, ["status"])
            try await run(conninfo, ["verify"])
            let connection = try Connection(conninfo)
            #expect(try version(of: "acme", connection) == "v1")
            #expect(try version(of: "globex", connection) == "v1")

            // Drift: exit code 2.
            try connection.fixtureScript("ALTER TABLE tenant_acme.recipe ADD COLUMN rating integer")
            do {
                try await run(conninfo, ["verify", "--tenant", "acme"])
                Issue.record("verify must fail on drift")
            } catch let exit as ExitCode {
                #expect(exit.rawValue == 2)
            }
            try await run(conninfo, ["verify", "--tenant", "globex"])
            // A column re-added at the end (as a rollback does): only --strict reports the order.
            try connection.fixtureScript("ALTER TABLE tenant_globex.recipe DROP COLUMN servings; ALTER TABLE tenant_globex.recipe ADD COLUMN servings smallint")
            try await run(conninfo, ["verify", "--tenant", "globex"])
            do {
                try await run(conninfo, ["verify", "--tenant", "globex", "--strict"])
                Issue.record("verify --strict must report columns out of model order")
            } catch let exit as ExitCode {
                #expect(exit.rawValue == 2)
            }

            // Drop needs its flag.
            do {
                try await run(conninfo, ["tenant", "drop", "globex"])
                Issue.record("drop without --yes-drop-data must fail")
            } catch {
                #expect(message(of: error).contains("--yes-drop-data"))
            }
            #expect(try version(of: "globex", connection) == "v1")
            try await run(conninfo, ["tenant", "drop", "globex", "--yes-drop-data"])
            #expect(try version(of: "globex", connection) == nil)

            // A hostile name is refused before anything runs.
            do {
                try await run(conninfo, ["tenant", "create", "x\"; DROP SCHEMA public; --"])
                Issue.record("a hostile name must be refused")
            } catch {
                #expect(message(of: error).contains("invalid tenant name"))
            }
        }
    }

    @Test func checkOfflineNeedsNoDatabase() async throws {
        let unreachable = ["--database-url", "host=/nonexistent port=1", "--offline"]
        try await run(["check", "--migrations", migrations] + unreachable)
        try await run(["check", "--migrations", fixtures, "--family", "Catalogue"] + unreachable)
        do {
            try await run(["check", "--migrations", fixtures, "--family", "Strict"] + unreachable)
            Issue.record("check must fail on an impossible step")
        } catch {
            let text = message(of: error)
            #expect(text.contains("v1 → v2"))
            #expect(!text.contains("\n"), "one paragraph: \(text)")
        }
    }

    /// A mapping filter or expression that is not valid SQL fails `check` and `plan`, naming its
    /// file and line, before any tenant runs it (issue 11); the Recipes mappings pass; nothing is written.
    @Test func checkAndPlanRejectInvalidMappingSQLWithItsFileAndLine() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            try await run(conninfo, ["check"])
            try await run(conninfo, ["plan", "--from", "v2", "--to", "v3"])

            // The Recipes family, with a v2 → v3 mapping whose SQL loads but PostgreSQL rejects.
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("cli-check-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: root) }
            let family = root.appendingPathComponent("Recipes")
            try FileManager.default.createDirectory(at: family.appendingPathComponent("Mappings"), withIntermediateDirectories: true)
            for file in ["family.yaml", "v1.yaml", "v2.yaml", "v3.yaml", "Mappings/v3-to-v2.yaml"] {
                try FileManager.default.copyItem(atPath: migrations + "/Recipes/" + file, toPath: family.appendingPathComponent(file).path)
            }
            let invalid = repositoryRoot.appendingPathComponent("Tests/MigrationEngineTests/Fixtures/InvalidSQL/recipes-v2-to-v3.yaml")
            try FileManager.default.copyItem(at: invalid, to: family.appendingPathComponent("Mappings/v2-to-v3.yaml"))
            let text = try String(contentsOf: invalid, encoding: .utf8)
            let line = (text.components(separatedBy: "\n").firstIndex { $0.contains("MISTAKE: syntax error") } ?? -1) + 1
            let connection = try Connection(conninfo)
            let schemasBefore = try connection.execute("SELECT count(*)::int FROM pg_namespace").first!.decode(Int.self, at: 0)

            for arguments in [["check"], ["plan", "--from", "v1", "--to", "v3"]] {
                do {
                    try await run(conninfo, arguments, migrationsDirectory: root.path)
                    Issue.record("\(arguments[0]) must fail on invalid mapping SQL")
                } catch {
                    let text = message(of: error)
                    #expect(text.contains("3 mapping expressions are not valid SQL"), "\(text)")
                    #expect(text.contains("Recipes/Mappings/v2-to-v3.yaml:\(line): mapping RecipeToRecipe: the filter \"type NOT IN ('Meat', 'Fish'\" is not valid SQL: ERROR 42601: syntax error"), "\(text)")
                }
            }
            // Not on the way: v1 → v2 is inferred, so its plan does not look at the v2 → v3 mapping.
            try await run(conninfo, ["plan", "--from", "v1", "--to", "v2"], migrationsDirectory: root.path)
            #expect(try connection.execute("SELECT count(*)::int FROM pg_namespace").first!.decode(Int.self, at: 0) == schemasBefore)
        }
    }

    @Test func planRunsNothing() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            try await run(conninfo, ["tenant", "create", "acme", "--version", "v1"])
            let connection = try Connection(conninfo)
            let historyBefore = try connection.execute("SELECT count(*)::int FROM tenant_migrator.migration_history").first!.decode(Int.self, at: 0)
            try await run(conninfo, ["plan", "--tenant", "acme", "--to", "v2"])
            try await run(conninfo, ["plan", "--from", "v2", "--to", "v1"])
            try await run(conninfo, ["plan", "--from", "v1", "--to", "v2", "--schema", "tenant_acme", "--json"])
            #expect(try version(of: "acme", connection) == "v1")
            #expect(try connection.execute("SELECT count(*)::int FROM tenant_migrator.migration_history").first!.decode(Int.self, at: 0) == historyBefore)
            #expect(try connection.execute("SELECT 1 FROM information_schema.columns WHERE table_schema = 'tenant_acme' AND column_name = 'instructions'").rowCount == 1)

            // To the latest: v1 → v2 inferred, then the v2 → v3 mapping model; still nothing runs.
            try await run(conninfo, ["plan", "--tenant", "acme"])
            #expect(try version(of: "acme", connection) == "v1")
            await #expect(throws: (any Error).self) { try await run(conninfo, ["plan"]) }
            await #expect(throws: (any Error).self) { try await run(conninfo, ["plan", "--tenant", "acme", "--from", "v1", "--to", "v2"]) }
        }
    }

    @Test func migrateAndRollback() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            try await run(conninfo, ["tenant", "create", "acme", "globex", "--version", "v1"])
            let connection = try Connection(conninfo)
            try connection.execute("INSERT INTO tenant_acme.recipe (name, instructions) VALUES ('Soup', 'Stir')")

            try await run(conninfo, ["migrate", "--tenant", "acme", "--tenant", "globex", "--to", "v2", "--lock-timeout", "2000"])
            #expect(try version(of: "acme", connection) == "v2")
            #expect(try version(of: "globex", connection) == "v2")
            #expect(try connection.execute("SELECT method FROM tenant_acme.recipe").first?.decode(String.self, at: 0) == "Stir")
            try await run(conninfo, ["migrate", "--tenant", "acme", "--to", "v2", "--json"])  // already current

            // migrate only moves forward.
            do {
                try await run(conninfo, ["migrate", "--tenant", "acme", "--to", "v1"])
                Issue.record("migrate must not move backward")
            } catch {
                #expect(message(of: error).contains("rollback"))
            }
            // Rolling back drops prep_minutes: with --no-archive, refused without the flag.
            do {
                try await run(conninfo, ["rollback", "--tenant", "acme", "--to", "v1", "--no-archive"])
                Issue.record("a destructive rollback must need --allow-destructive")
            } catch {
                #expect(message(of: error).contains("--allow-destructive"))
            }
            #expect(try version(of: "acme", connection) == "v2")
            try await run(conninfo, ["rollback", "--tenant", "acme", "--to", "v1", "--allow-destructive"])
            #expect(try version(of: "acme", connection) == "v1")
            #expect(try connection.execute("SELECT instructions FROM tenant_acme.recipe").first?.decode(String.self, at: 0) == "Stir")
            try await run(conninfo, ["verify", "--tenant", "acme"])

            await #expect(throws: (any Error).self) { try await run(conninfo, ["migrate"]) }
            await #expect(throws: (any Error).self) { try await run(conninfo, ["migrate", "--tenant", "Bad Name"]) }
            await #expect(throws: (any Error).self) { try await run(conninfo, ["rollback", "--tenant", "acme"]) }
        }
    }

    @Test func migrateToTheLatestThroughTheMappedStep() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            try await run(conninfo, ["tenant", "create", "acme", "--version", "v1"])
            let connection = try Connection(conninfo)
            try connection.fixtureScript("""
                INSERT INTO tenant_acme.recipe (name, type, servings, instructions) VALUES ('Stew', 'Meat', 4, 'Simmer'), ('Cake', 'Dessert', 8, 'Bake');
                INSERT INTO tenant_acme.recipe_ingredient (name, quantity, unit_of_measure, recipe_id) VALUES
                    ('Beef', 500, 'g', 1), ('Flour', 200, 'g', 2), ('Egg', 2, NULL, 2);
                """)
            try await run(conninfo, ["migrate", "--tenant", "acme"])
            #expect(try version(of: "acme", connection) == "v3")
            #expect(try connection.execute("SELECT count(*)::int FROM tenant_acme.ingredient").first?.decode(Int.self, at: 0) == 3)
            #expect(try connection.execute("SELECT type FROM tenant_acme.recipe WHERE name = 'Stew'").first?.decode(String.self, at: 0) == "Entrée")
            try await run(conninfo, ["verify", "--tenant", "acme"])
        }
    }
}
