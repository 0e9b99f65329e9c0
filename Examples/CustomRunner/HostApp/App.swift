import ArgumentParser
import Foundation
import Logging
import RecipesPolicies
import TenantMigrateCLI

/// recipes-app: an app's own command line, with the runner as its `migrate` subcommand
/// (`recipes-app migrate status`, `recipes-app migrate migrate --all`).
@main
struct App: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recipes-app",
        subcommands: [Serve.self, Migrate.self]
    )

    static func main() async {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)   // the app's own logging
        await Self.main(nil)
    }
}

/// The runner, as the app's `migrate` command (the type's name gives the command's).
struct Migrate: TenantMigrateRunner {
    static let runnerConfiguration = TenantMigrateConfiguration(
        migrationsDirectory: URL(fileURLWithPath: "Migrations"),
        policies: RecipesPolicies.registry,
        logging: .loggingSystem                                    // the runner logs through the app's handler
    )
}

/// Stands in for the app's own server command.
struct Serve: AsyncParsableCommand {
    func run() async throws {
        Logger(label: "recipes-app").info("serving (an example: nothing to serve)")
    }
}
