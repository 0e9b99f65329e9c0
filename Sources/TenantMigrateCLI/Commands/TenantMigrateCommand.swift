import ArgumentParser
import Foundation
import MigrationEngine

/// The `tenant-migrate` command and all its subcommands.
///
/// It lives in a library so that an application can build its own runner: an executable of its own
/// (``main(_:bootstrapLogging:)``), or a subcommand of the app's own command (list
/// `TenantMigrateCommand.self` in its `subcommands` and call ``configure(_:bootstrapLogging:)``
/// first). See docs/CustomRunner.md.
public struct TenantMigrateCommand: AsyncParsableCommand {
    /// Built from the runner's ``TenantMigrateConfiguration`` each time it is read, so that the name,
    /// the help and the subcommands are the runner's own.
    public static var configuration: CommandConfiguration {
        let runner = CommandEnvironment.configuration
        let database = runner.allowsEmbeddedServer
            ? "With none of them set, it uses an embedded PostgreSQL server in .tenant-migrate/postgres under the working directory."
            : "With none of them set, it stops with an error."
        let models = runner.migrationsDirectory?.path ?? "./Migrations"
        return CommandConfiguration(
            commandName: runner.commandName ?? "tenant-migrate",
            abstract: "Migrate multi-tenant PostgreSQL schemas along a versioned entity model.",
            discussion: """
                Every command takes --database-url, or DATABASE_URL, or libpq's own defaults (PGHOST, \
                PGDATABASE, PGSERVICE, …). \(database) The models come from --migrations, else \
                \(TenantMigrateConfiguration.migrationsVariable), else \(models).
                """,
            subcommands: runner.additionalSubcommands + [
                TenantCommand.self,
                StatusCommand.self,
                ArchiveCommand.self,
                VerifyCommand.self,
                CheckCommand.self,
                PlanCommand.self,
                MigrateCommand.self,
                RollbackCommand.self,
                DiagramCommand.self,
                ModelCommand.self,
            ] + (runner.allowsEmbeddedServer ? [EmbeddedCommand.self] : [])
        )
    }

    public init() {}

    /// Runs the command line as the process's root command: the entry point of `tenant-migrate`
    /// and of an application's own runner executable.
    ///
    /// ```swift
    /// var policies = PolicyRegistry()
    /// policies.register("MyPolicy") { MyPolicy() }
    /// await TenantMigrateCommand.main(TenantMigrateConfiguration(
    ///     migrationsDirectory: Bundle.module.url(forResource: "Migrations", withExtension: nil),
    ///     policies: policies
    /// ))
    /// ```
    ///
    /// - Parameter bootstrapLogging: Whether the commands bootstrap swift-log (stderr; warnings,
    ///   or every SQL statement with `--verbose`). Pass false when the process already did: swift-log
    ///   allows one bootstrap per process.
    public static func main(_ configuration: TenantMigrateConfiguration, bootstrapLogging: Bool = true) async {
        var configuration = configuration
        if configuration.commandName == nil {
            configuration.commandName = CommandLine.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "tenant-migrate"
        }
        install(configuration, bootstrapLogging: bootstrapLogging)
        await main()
    }

    /// Runs the command line with the application's migration policies registered and the rest of
    /// ``TenantMigrateConfiguration`` at its defaults.
    public static func main(policies: PolicyRegistry) async {
        await main(TenantMigrateConfiguration(policies: policies))
    }

    /// Configures the runner for a host command that lists `TenantMigrateCommand` among its
    /// subcommands; call it before the host parses its arguments.
    ///
    /// ```swift
    /// TenantMigrateCommand.configure(TenantMigrateConfiguration(commandName: "migrate", policies: policies))
    /// await App.main()   // `App migrate status`, `App migrate migrate --all`, …
    /// ```
    ///
    /// - Parameter bootstrapLogging: Whether the commands bootstrap swift-log. False by default:
    ///   a host app bootstraps its own logging, and a second bootstrap would crash the process. The
    ///   runner's loggers then go to the host's handler, at `--verbose`'s level.
    public static func configure(_ configuration: TenantMigrateConfiguration, bootstrapLogging: Bool = false) {
        var configuration = configuration
        if configuration.commandName == nil { configuration.commandName = "migrate" }
        install(configuration, bootstrapLogging: bootstrapLogging)
    }

    /// Registers the policies (and stage hooks) every command uses, for commands parsed and run
    /// in-process (`parseAsRoot(_:)`), as tests do; the rest of the configuration is kept.
    public static func use(policies: PolicyRegistry) {
        CommandEnvironment.configuration.policies = policies
    }

    private static func install(_ configuration: TenantMigrateConfiguration, bootstrapLogging: Bool) {
        CommandEnvironment.configuration = configuration
        CommandEnvironment.bootstrapsLogging = bootstrapLogging
    }
}
