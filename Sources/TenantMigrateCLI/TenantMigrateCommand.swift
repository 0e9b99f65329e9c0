import ArgumentParser
import MigrationEngine

/// The `tenant-migrate` command and all its subcommands.
///
/// It lives in a library so that an application can build its own runner executable that reuses
/// every command.
public struct TenantMigrateCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "tenant-migrate",
        abstract: "Migrate multi-tenant PostgreSQL schemas along a versioned entity model.",
        discussion: """
            Every command takes --database-url, or DATABASE_URL, or libpq's own defaults (PGHOST, \
            PGDATABASE, PGSERVICE, …). With none of them set, it uses an embedded PostgreSQL server \
            in .tenant-migrate/postgres under the working directory.
            """,
        subcommands: [
            DemoCommand.self,
            TenantCommand.self,
            StatusCommand.self,
            ArchiveCommand.self,
            VerifyCommand.self,
            CheckCommand.self,
            PlanCommand.self,
            MigrateCommand.self,
            RollbackCommand.self,
            EmbeddedCommand.self,
        ]
    )

    public init() {}

    /// Runs the command line with the application's migration policies registered: the entry
    /// point of `tenant-migrate` and of an application's own runner.
    ///
    /// ```swift
    /// var policies = PolicyRegistry()
    /// policies.register("MyPolicy") { MyPolicy() }
    /// await TenantMigrateCommand.main(policies: policies)
    /// ```
    public static func main(policies: PolicyRegistry) async {
        use(policies: policies)
        await main()
    }

    /// Registers the policies (and stage hooks) every command uses, for commands parsed and run
    /// in-process (`parseAsRoot(_:)`), as tests and embedding apps do.
    public static func use(policies: PolicyRegistry) {
        CommandEnvironment.policies = policies
    }
}

/// What the process's entry point provides to every command.
enum CommandEnvironment {
    nonisolated(unsafe) static var policies = PolicyRegistry()
}
