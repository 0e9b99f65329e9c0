import ArgumentParser
import Foundation
import LibPQ
import PostgresTestSupport
import RecipesPolicies
import TenantMigrateCLI
import Testing

/// The previous release's runner, configured at run time, still builds and runs for one release.
@Suite("The deprecated runner")
struct TenantMigrateCommandTests {
    /// A command of an app's own on the old options.
    @available(*, deprecated, message: "exercises GlobalOptions")
    struct LegacyTenantCount: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "count")
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            TextTable.print(["TENANTS"], [[String(try await options.makeMigrator().tenants().count)]])
        }
    }

    @available(*, deprecated, message: "exercises TenantMigrateCommand")
    @Test func configureUseAndGlobalOptionsStillWork() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            TenantMigrateCommand.configure(TenantMigrateConfiguration(
                migrationsDirectory: PackagePaths.root.appendingPathComponent("Migrations"), additionalSubcommands: [LegacyTenantCount.self]
            ))
            TenantMigrateCommand.use(policies: RecipesPolicies.registry)
            let help = TenantMigrateCommand.helpMessage(columns: 200)
            #expect(help.contains("USAGE: migrate <subcommand>") && help.contains("count"), "\(help)")
            for arguments in [["tenant", "create", "acme"], ["count"], ["migrate", "--all"]] {
                var command = try TenantMigrateCommand.parseAsRoot(arguments + ["--database-url", conninfo])
                if var async = command as? AsyncParsableCommand { try await async.run() } else { try command.run() }
            }
            #expect(try Connection(conninfo).execute("SELECT version FROM tenant_migrator.tenants").first?.decode(String.self, at: 0) == "v3")
        }
    }
}
