import ArgumentParser
import PostgresTestSupport
import RecipesPolicies
import TenantMigrateCLI

/// The package's `Migrations/` directory, which the command line reads by default.
public let migrationsDirectory = PackagePaths.root.appendingPathComponent("Migrations").path

/// Runs `tenant-migrate <arguments> --database-url <conninfo> --migrations <migrations>` in-process,
/// as the executable would (with the Recipes policies registered), and returns its exit code: 0
/// when the command returns, the code of the `ExitCode` it throws. Any other error is rethrown.
@discardableResult
public func runTenantMigrate(_ conninfo: String, _ arguments: [String], migrations: String = migrationsDirectory) async throws -> Int32 {
    do {
        var command = try RecipesTestRunner.parseAsRoot(arguments + ["--database-url", conninfo, "--migrations", migrations])
        if var async = command as? AsyncParsableCommand {
            try await async.run()
        } else {
            try command.run()
        }
        return 0
    } catch let exit as ExitCode {
        return exit.rawValue
    }
}

/// The runner the tests run in-process: `tenant-migrate` with the Recipes policies (its mapping
/// models name them). Its configuration is a constant of the type, so no suite configures another's.
public struct RecipesTestRunner: TenantMigrateRunner {
    public static let runnerConfiguration = TenantMigrateConfiguration(commandName: "tenant-migrate", policies: RecipesPolicies.registry)

    public init() {}
}
