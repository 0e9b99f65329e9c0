import ArgumentParser
import Foundation
import MigrationEngine

/// How a runner built on `TenantMigrateCLI` presents itself and where it finds its models and its
/// database: its name, its bundled models, its policies, its extra commands, and whether it may
/// start an embedded PostgreSQL server.
///
/// Pass it to ``TenantMigrateCommand/main(_:bootstrapLogging:)`` from the runner's own executable,
/// or to ``TenantMigrateCommand/configure(_:bootstrapLogging:)`` before a host command that lists
/// ``TenantMigrateCommand`` among its subcommands parses its arguments.
public struct TenantMigrateConfiguration: Sendable {
    /// The name help and usage show. Nil: the executable's own name when run through
    /// ``TenantMigrateCommand/main(_:bootstrapLogging:)``, and `migrate` as a host's subcommand
    /// (``TenantMigrateCommand/configure(_:bootstrapLogging:)``).
    public var commandName: String?
    /// The directory of the model families when neither `--migrations` nor
    /// `TENANT_MIGRATE_MIGRATIONS` names one, e.g. the app's bundled models
    /// (`Bundle.module.url(forResource: "Migrations", withExtension: nil)`). Nil: `./Migrations`.
    public var migrationsDirectory: URL?
    /// Whether the commands may start an embedded PostgreSQL server (in `.tenant-migrate/postgres`
    /// under the working directory) when no database is configured. Off by default: with no
    /// `--database-url`, `DATABASE_URL` or PG* variable, a command then fails and starts nothing.
    public var allowsEmbeddedServer: Bool
    /// The migration policies and stage hooks the family's mapping models use.
    public var policies: PolicyRegistry
    /// The runner's own commands, listed before the built-in ones (`tenant-migrate` adds `demo`).
    public var additionalSubcommands: [any ParsableCommand.Type]

    public init(
        commandName: String? = nil,
        migrationsDirectory: URL? = nil,
        allowsEmbeddedServer: Bool = false,
        policies: PolicyRegistry = PolicyRegistry(),
        additionalSubcommands: [any ParsableCommand.Type] = []
    ) {
        self.commandName = commandName
        self.migrationsDirectory = migrationsDirectory
        self.allowsEmbeddedServer = allowsEmbeddedServer
        self.policies = policies
        self.additionalSubcommands = additionalSubcommands
    }

    /// The environment variable that names the models directory, between `--migrations` and
    /// ``migrationsDirectory``.
    public static let migrationsVariable = "TENANT_MIGRATE_MIGRATIONS"
}
