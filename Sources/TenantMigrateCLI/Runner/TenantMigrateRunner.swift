import ArgumentParser

/// A runner: the `tenant-migrate` command tree under a name, with models, policies and commands of
/// its own. The conforming type is the root command; its configuration is a constant of the type,
/// and every command of the tree is generic over the type, so nothing is configured at run time
/// and no state is shared between runners, or between a runner and its host.
///
/// An executable of its own:
///
/// ```swift
/// struct RecipesRunner: TenantMigrateRunner {
///     static let runnerConfiguration = TenantMigrateConfiguration(policies: RecipesPolicies.registry)
/// }
/// await RecipesRunner.main()        // recipes-runner status, recipes-runner migrate --all, …
/// ```
///
/// A subcommand of an app's own command, as ArgumentParser nests any command: list the type in the
/// app's `subcommands` (`App.configuration.subcommands = [Serve.self, Migrate.self]` gives
/// `app migrate status`, `app migrate migrate --all`, …). See docs/CustomRunner.md.
public protocol TenantMigrateRunner: AsyncParsableCommand {
    /// The runner's name, version, models, policies, own commands, database and logging rules.
    static var runnerConfiguration: TenantMigrateConfiguration { get }
}

extension TenantMigrateRunner {
    /// The command tree, named and described after ``runnerConfiguration``.
    public static var configuration: CommandConfiguration {
        let runner = runnerConfiguration
        let database = runner.allowsEmbeddedServer
            ? "With none of them set, it uses an embedded PostgreSQL server in .tenant-migrate/postgres under the working directory."
            : "With none of them set, it stops with an error."
        let models = runner.migrationsDirectory?.path ?? "./Migrations"
        return CommandConfiguration(
            commandName: runner.commandName,
            abstract: "Migrate multi-tenant PostgreSQL schemas along a versioned entity model.",
            discussion: """
                Every command takes --database-url, or DATABASE_URL, or libpq's own defaults (PGHOST, \
                PGDATABASE, PGSERVICE, …). \(database) The models come from --migrations, else \
                \(TenantMigrateConfiguration.migrationsVariable), else \(models).
                """,
            version: versionText,
            subcommands: runner.additionalSubcommands + [
                TenantCommand<Self>.self,
                StatusCommand<Self>.self,
                HistoryCommand<Self>.self,
                ArchiveCommand<Self>.self,
                OnlineCommand<Self>.self,
                VerifyCommand<Self>.self,
                CheckCommand<Self>.self,
                PlanCommand<Self>.self,
                MigrateCommand<Self>.self,
                RollbackCommand<Self>.self,
                DiagramCommand<Self>.self,
                ModelCommand<Self>.self,
            ] + (runner.allowsEmbeddedServer ? [EmbeddedCommand<Self>.self] : [])
        )
    }

    /// What `--version` prints: the runner's own version with the library's, or the library's.
    static var versionText: String {
        let library = TenantMigrateConfiguration.libraryVersion
        return runnerConfiguration.version.map { "\($0) (TenantMigrator \(library))" } ?? library
    }

    /// Notes on stderr, under the runner's name (`tenant-migrate: …`).
    static var console: Console { Console(commandName: _commandName) }
}
