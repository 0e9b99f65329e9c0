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
    TenantMigrateCommand.use(policies: RecipesPolicies.registry)
    do {
        var command = try TenantMigrateCommand.parseAsRoot(arguments + ["--database-url", conninfo, "--migrations", migrations])
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
