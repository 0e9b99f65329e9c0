import ArgumentParser
import Foundation
import MigrationEngine
import PostgresTestSupport
import TenantMigrateCLI
import Testing

/// Two runners in one process, each configured by its type alone: nothing is set at run time,
/// so neither sees the other's name, version, models or database rules.
struct InventoryRunner: TenantMigrateRunner {
    static let runnerConfiguration = TenantMigrateConfiguration(
        version: "2.3.1", migrationsDirectory: URL(fileURLWithPath: "/srv/inventory/Migrations"), allowsEmbeddedServer: true
    )
}

struct BillingTool: TenantMigrateRunner {
    static let runnerConfiguration = TenantMigrateConfiguration(commandName: "billing-migrate")
}

@Suite("Runner types")
struct TenantMigrateRunnerTests {
    @Test func eachRunnerHasItsOwnNameVersionAndRules() throws {
        let inventory = InventoryRunner.helpMessage(columns: 200)
        #expect(inventory.contains("USAGE: inventory-runner <subcommand>"), "the type's name: \(inventory)")
        #expect(inventory.contains("/srv/inventory/Migrations") && inventory.contains("embedded"), "\(inventory)")
        let billing = BillingTool.helpMessage(columns: 200)
        #expect(billing.contains("USAGE: billing-migrate <subcommand>") && !billing.contains("embedded") && !billing.contains("inventory"), "\(billing)")

        #expect(Self.version(of: InventoryRunner.self) == "2.3.1 (TenantMigrator \(TenantMigrateConfiguration.libraryVersion))")
        #expect(Self.version(of: BillingTool.self) == TenantMigrateConfiguration.libraryVersion)
        // The same command of either runner reads its own runner's configuration.
        let status = try #require(BillingTool.configuration.subcommands.first { $0.configuration.commandName == "status" })
        #expect(BillingTool.helpMessage(for: status, columns: 200).contains("USAGE: billing-migrate status"))
    }

    @Test func theExecutablePrintsItsVersion() async throws {
        let output = try await TenantMigrateExecutable.run(["--version"])
        #expect(output.status == 0 && output.stdout == TenantMigrateConfiguration.libraryVersion + "\n", "\(output.stdout)")
    }

    /// The README's shell-completion commands, run as written (without the redirection): each
    /// prints a script for its shell that completes the commands.
    @Test func theREADMEsCompletionScriptsAreGenerated() async throws {
        let readme = try String(contentsOf: PackagePaths.root.appendingPathComponent("README.md"), encoding: .utf8)
        let shells = readme.components(separatedBy: "\n").filter { $0.hasPrefix("tenant-migrate --generate-completion-script ") }
            .map { $0.split(separator: " ")[2] }
        #expect(shells == ["bash", "zsh", "fish"])
        for shell in shells {
            let output = try await TenantMigrateExecutable.run(["--generate-completion-script", String(shell)])
            #expect(output.status == 0 && output.stdout.contains("tenant-migrate") && output.stdout.contains("rollback") && output.stdout.contains("history"),
                    "\(shell): \(output.stdout.prefix(300))\(output.stderr)")
        }
    }

    /// What `--version` prints for `runner`.
    static func version<Runner: TenantMigrateRunner>(of runner: Runner.Type) -> String? {
        do {
            _ = try Runner.parseAsRoot(["--version"])
            return nil
        } catch {
            return Runner.fullMessage(for: error)
        }
    }
}
