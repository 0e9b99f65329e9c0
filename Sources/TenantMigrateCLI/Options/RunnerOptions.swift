import ArgumentParser
import EntityModel
import Foundation
import Logging
import MigrationEngine
import TenantMigrator
import TypedSQL

/// Options every command of a runner shares: where the database and the models are. A runner's
/// own commands take them too (`@OptionGroup var options: RunnerOptions<MyRunner>`) and get their
/// migrator from ``withMigrator(_:)``, which shuts it down when the command is done.
public struct RunnerOptions<Runner: TenantMigrateRunner>: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Connection string or postgres:// URL. Default: $DATABASE_URL, then libpq's PG* defaults"
            + (Runner.runnerConfiguration.allowsEmbeddedServer ? ", then the embedded server." : "."),
        valueName: "url"
    ))
    public var databaseURL: String?

    @Option(name: .long, help: ArgumentHelp(
        "Directory holding the model families, or one family's directory. Default: $\(TenantMigrateConfiguration.migrationsVariable), then "
            + (Runner.runnerConfiguration.migrationsDirectory?.path ?? "./Migrations") + ".",
        valueName: "dir"
    ))
    public var migrations: String?

    @Option(name: .long, help: ArgumentHelp("The model family (a directory under --migrations). Default: the only one there.", valueName: "name"))
    public var family: String?

    @Option(name: .long, help: ArgumentHelp(
        "A directory of mapping models that replace the family's own (<family>/Mappings) for the pairs they map, "
            + "such as Migrations/Recipes/Mappings/Declarative.",
        valueName: "dir"
    ))
    public var mappings: String?

    @Option(name: .long, help: ArgumentHelp("Schema of the tenant catalog.", valueName: "schema"))
    public var catalog: String = TenantCatalog.defaultSchema

    @Flag(name: .shortAndLong, help: "Log every SQL statement (like Core Data's SQLDebug).")
    public var verbose = false

    public init() {}

    public func validate() throws {
        do {
            try TenantCatalog.validateName(catalog)
        } catch {
            throw ValidationError("--catalog: \(error)")
        }
    }

    /// The runner's configuration.
    var runner: TenantMigrateConfiguration { Runner.runnerConfiguration }

    /// Notes on stderr, under the runner's name.
    var console: Console { Runner.console }

    /// Loads the family and its mapping models, resolves the database (`--database-url`,
    /// `DATABASE_URL`, libpq's PG* variables, then the embedded server where the runner allows it)
    /// and builds the migrator. The caller shuts it down (``TenantMigrator/shutdown()``);
    /// ``withMigrator(_:)`` does that itself.
    public func makeMigrator() throws -> TenantMigrator {
        try makeMigratorAndDatabase().migrator
    }

    /// Runs `body` with the migrator ``makeMigrator()`` builds, and shuts it down (its connections
    /// closed) when `body` returns or throws: how a runner's own command gets its one migrator, as
    /// the runner's commands do.
    public func withMigrator<Result>(_ body: (TenantMigrator) async throws -> Result) async throws -> Result {
        try await withMigrator { migrator, _ in try await body(migrator) }
    }

    /// Runs `body` with the command's one migrator and the database it chose, and shuts the
    /// migrator down (its connections closed) when `body` returns or throws: how every command
    /// gets its migrator.
    func withMigrator<Result>(_ body: (TenantMigrator, DatabaseResolver.Choice) async throws -> Result) async throws -> Result {
        let (migrator, database) = try makeMigratorAndDatabase()
        return try await Self.shuttingDown(migrator) { try await body($0, database) }
    }

    /// Runs `body` with a migrator for offline work (``makeOfflineMigrator()``), or with the command's
    /// one migrator when `offline` is false, and shuts it down when `body` returns or throws.
    func withMigrator<Result>(offline: Bool, _ body: (TenantMigrator) async throws -> Result) async throws -> Result {
        guard offline else { return try await withMigrator(body) }
        return try await Self.shuttingDown(try makeOfflineMigrator(), body)
    }

    private static func shuttingDown<Result>(_ migrator: TenantMigrator, _ body: (TenantMigrator) async throws -> Result) async throws -> Result {
        do {
            let result = try await body(migrator)
            await migrator.shutdown()
            return result
        } catch {
            await migrator.shutdown()
            throw error
        }
    }

    /// ``makeMigrator()``, and the database it chose: the family is loaded first, so that a wrong
    /// models directory fails before any server is started.
    func makeMigratorAndDatabase() throws -> (migrator: TenantMigrator, database: DatabaseResolver.Choice) {
        let directory = try familyDirectory()
        let database = try self.database()
        return (try makeMigrator(familyDirectory: directory, connectionString: database.connectionString), database)
    }

    /// The database to work on, for a command that needs no family (`model import --from-schema`).
    func database() throws -> DatabaseResolver.Choice {
        try DatabaseResolver(allowsEmbeddedServer: runner.allowsEmbeddedServer, console: console, logger: logger).resolve(explicit: databaseURL)
    }

    /// A migrator for offline work (`check --offline`): loads the family, resolves no database.
    func makeOfflineMigrator() throws -> TenantMigrator {
        try makeMigrator(familyDirectory: try familyDirectory(), connectionString: databaseURL ?? "")
    }

    private func makeMigrator(familyDirectory: URL, connectionString: String) throws -> TenantMigrator {
        try TenantMigrator(
            connectionString: connectionString,
            familyDirectory: familyDirectory,
            mappingsDirectory: mappings.map { URL(fileURLWithPath: $0) },
            policies: runner.policies,
            catalog: TenantCatalog(schema: catalog),
            applicationName: Runner._commandName,
            logger: logger
        )
    }

    /// The commands' logger: warnings, or every SQL statement with `--verbose`, where the runner's
    /// ``TenantMigrateConfiguration/logging`` sends them.
    var logger: Logger {
        Console.logger(label: Runner._commandName, verbose: verbose, destination: runner.logging)
    }

    /// The directory of the model families: `--migrations`, else `TENANT_MIGRATE_MIGRATIONS`, else
    /// the runner's configured directory, else `./Migrations`.
    var migrationsDirectory: URL {
        if let migrations { return URL(fileURLWithPath: migrations) }
        if let variable = ProcessInfo.processInfo.environment[TenantMigrateConfiguration.migrationsVariable], !variable.isEmpty {
            return URL(fileURLWithPath: variable)
        }
        return runner.migrationsDirectory ?? URL(fileURLWithPath: "Migrations")
    }

    /// The family's directory: `--family` under the models directory; the models directory itself
    /// when it is a family (it holds a family.yaml); or the only family there.
    func familyDirectory() throws -> URL {
        let root = migrationsDirectory
        let candidates = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [])
            .filter { Self.isFamily(root.appendingPathComponent($0)) }
            .sorted()
        if let family {
            let directory = root.appendingPathComponent(family)
            // A misspelt --family: the families there, rather than a file that is not there.
            guard FileManager.default.fileExists(atPath: directory.path) else {
                throw CLIError("no family \(family) in \(root.path): there is no directory \(family) there "
                    + (candidates.isEmpty ? "(and no family either; name the models directory with --migrations or \(TenantMigrateConfiguration.migrationsVariable))"
                        : "(the famil\(candidates.count == 1 ? "y" : "ies") there: \(candidates.joined(separator: ", ")))"))
            }
            return directory
        }
        if Self.isFamily(root) { return root }
        guard candidates.count == 1 else {
            throw CLIError(candidates.isEmpty
                ? "no model family found in \(root.path) (a family is a directory with a family.yaml, or a directory of them); "
                    + "name the models directory with --migrations or \(TenantMigrateConfiguration.migrationsVariable)"
                : "several families in \(root.path) (\(candidates.joined(separator: ", "))); choose one with --family")
        }
        return root.appendingPathComponent(candidates[0])
    }

    private static func isFamily(_ directory: URL) -> Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("family.yaml").path)
    }
}

/// A plain user-facing error: printed as is, without a stack trace.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
