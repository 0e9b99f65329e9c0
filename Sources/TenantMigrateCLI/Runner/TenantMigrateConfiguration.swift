import ArgumentParser
import Foundation
import MigrationEngine

/// How a runner built on `TenantMigrateCLI` presents itself and where it finds its models and its
/// database: its name, its version, its bundled models, its policies, its extra commands, whether
/// it may start an embedded PostgreSQL server, and where its logs go.
///
/// A runner type returns it from ``TenantMigrateRunner/runnerConfiguration``; it is a constant of
/// that type, so every command reads the same value, in help and at run time, with no state shared
/// between runners.
public struct TenantMigrateConfiguration: Sendable {
    /// The name help and usage show. Nil: ArgumentParser's name for the runner's type
    /// (`RecipesRunner` → `recipes-runner`, `Migrate` → `migrate`).
    public var commandName: String?
    /// The runner's own version, which `--version` prints beside the library's (nil: the library's alone).
    public var version: String?
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
    /// Where the commands' logs go (see ``Logging``).
    public var logging: Logging

    /// Where the commands' logs go: warnings by default, every SQL statement with `--verbose`.
    public enum Logging: Sendable {
        /// Whole lines on stderr, written by the runner itself; swift-log's `LoggingSystem` is
        /// left alone, so this suits an executable of its own and a host app alike.
        case standardError
        /// The process's swift-log handler, as the host app bootstrapped it.
        case loggingSystem
    }

    public init(
        commandName: String? = nil,
        version: String? = nil,
        migrationsDirectory: URL? = nil,
        allowsEmbeddedServer: Bool = false,
        policies: PolicyRegistry = PolicyRegistry(),
        additionalSubcommands: [any ParsableCommand.Type] = [],
        logging: Logging = .standardError
    ) {
        self.commandName = commandName
        self.version = version
        self.migrationsDirectory = migrationsDirectory
        self.allowsEmbeddedServer = allowsEmbeddedServer
        self.policies = policies
        self.additionalSubcommands = additionalSubcommands
        self.logging = logging
    }

    /// The environment variable that names the models directory, between `--migrations` and
    /// ``migrationsDirectory``.
    public static let migrationsVariable = "TENANT_MIGRATE_MIGRATIONS"

    /// The version of the TenantMigrator library and its commands.
    public static let libraryVersion = "1.0.0-dev"
}
