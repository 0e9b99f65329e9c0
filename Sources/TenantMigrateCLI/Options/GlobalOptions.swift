import ArgumentParser
import EntityModel
import Foundation
import Logging
import MigrationEngine
import TenantMigrator

/// Options every command shares: where the database and the models are. A runner's own commands
/// take them too (`@OptionGroup var options: GlobalOptions`) and get their migrator from
/// ``makeMigrator()``.
public struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Connection string or postgres:// URL. Default: $DATABASE_URL, then libpq's PG* defaults"
            + (CommandEnvironment.configuration.allowsEmbeddedServer ? ", then the embedded server." : "."),
        valueName: "url"
    ))
    public var databaseURL: String?

    @Option(name: .long, help: ArgumentHelp(
        "Directory holding the model families. Default: $\(TenantMigrateConfiguration.migrationsVariable), then "
            + (CommandEnvironment.configuration.migrationsDirectory?.path ?? "./Migrations") + ".",
        valueName: "dir"
    ))
    public var migrations: String?

    @Option(name: .long, help: ArgumentHelp("The model family (a directory under --migrations). Default: the only one there.", valueName: "name"))
    public var family: String?

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

    /// Loads the family and its mapping models, resolves the database (`--database-url`,
    /// `DATABASE_URL`, libpq's PG* variables, then the embedded server where the runner allows it)
    /// and builds the migrator.
    public func makeMigrator() throws -> TenantMigrator {
        let directory = try familyDirectory()
        return try makeMigrator(familyDirectory: directory, connectionString: DatabaseResolver.resolve(explicit: databaseURL))
    }

    /// A migrator for offline work (`check --offline`): loads the family, resolves no database.
    func makeOfflineMigrator() throws -> TenantMigrator {
        try makeMigrator(familyDirectory: try familyDirectory(), connectionString: databaseURL ?? "")
    }

    private func makeMigrator(familyDirectory: URL, connectionString: String) throws -> TenantMigrator {
        Console.bootstrapLogging(verbose: verbose)
        return try TenantMigrator(
            connectionString: connectionString,
            familyDirectory: familyDirectory,
            policies: CommandEnvironment.policies,
            catalog: TenantCatalog(schema: catalog),
            applicationName: CommandEnvironment.configuration.commandName ?? "tenant-migrate",
            logger: Console.logger(verbose: verbose)
        )
    }

    /// The directory of the model families: `--migrations`, else `TENANT_MIGRATE_MIGRATIONS`, else
    /// the runner's configured directory, else `./Migrations`.
    var migrationsDirectory: URL {
        if let migrations { return URL(fileURLWithPath: migrations) }
        if let variable = ProcessInfo.processInfo.environment[TenantMigrateConfiguration.migrationsVariable], !variable.isEmpty {
            return URL(fileURLWithPath: variable)
        }
        return CommandEnvironment.configuration.migrationsDirectory ?? URL(fileURLWithPath: "Migrations")
    }

    /// The family's directory: `--family` under the models directory, or the only family there.
    func familyDirectory() throws -> URL {
        let root = migrationsDirectory
        if let family { return root.appendingPathComponent(family) }
        let candidates = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [])
            .filter { FileManager.default.fileExists(atPath: root.appendingPathComponent($0).appendingPathComponent("family.yaml").path) }
            .sorted()
        guard candidates.count == 1 else {
            throw CLIError(candidates.isEmpty
                ? "no model family found in \(root.path) (a family is a directory with a family.yaml); name the models directory with --migrations or \(TenantMigrateConfiguration.migrationsVariable)"
                : "several families in \(root.path) (\(candidates.joined(separator: ", "))); choose one with --family")
        }
        return root.appendingPathComponent(candidates[0])
    }
}

/// A plain user-facing error: printed as is, without a stack trace.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
