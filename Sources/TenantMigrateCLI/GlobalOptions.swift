import ArgumentParser
import EntityModel
import Foundation
import Logging
import MigrationEngine
import TenantMigrator

/// Options every command shares: where the database and the models are.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Connection string or postgres:// URL. Default: $DATABASE_URL, then libpq's PG* defaults, then the embedded server.", valueName: "url"))
    var databaseURL: String?

    @Option(name: .long, help: ArgumentHelp("Directory holding the model families.", valueName: "dir"))
    var migrations: String = "Migrations"

    @Option(name: .long, help: ArgumentHelp("The model family (a directory under --migrations). Default: the only one there.", valueName: "name"))
    var family: String?

    @Option(name: .long, help: ArgumentHelp("Schema of the tenant catalog.", valueName: "schema"))
    var catalog: String = TenantCatalog.defaultSchema

    @Flag(name: .shortAndLong, help: "Log every SQL statement (like Core Data's SQLDebug).")
    var verbose = false

    func validate() throws {
        do {
            try TenantCatalog.validateName(catalog)
        } catch {
            throw ValidationError("--catalog: \(error)")
        }
    }

    /// Loads the family, resolves the database and builds the migrator.
    func makeMigrator() throws -> TenantMigrator {
        Console.bootstrapLogging(verbose: verbose)
        let family = try loadFamily()
        let mappings = try MappingModel.loadAll(for: family, policies: CommandEnvironment.policies)
        let database = try DatabaseResolver.resolve(explicit: databaseURL)
        var migrator = TenantMigrator(
            connectionString: database,
            family: family,
            catalog: TenantCatalog(schema: catalog),
            mappings: mappings,
            logger: Console.logger(verbose: verbose)
        )
        migrator.policies = CommandEnvironment.policies
        return migrator
    }

    func loadFamily() throws -> ModelFamily {
        let root = URL(fileURLWithPath: migrations)
        let name: String
        if let family {
            name = family
        } else {
            let candidates = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [])
                .filter { FileManager.default.fileExists(atPath: root.appendingPathComponent($0).appendingPathComponent("family.yaml").path) }
                .sorted()
            guard candidates.count == 1 else {
                throw CLIError(candidates.isEmpty
                    ? "no model family found in \(root.path) (a family is a directory with a family.yaml); use --migrations"
                    : "several families in \(root.path) (\(candidates.joined(separator: ", "))); choose one with --family")
            }
            name = candidates[0]
        }
        return try ModelFamily.load(from: root.appendingPathComponent(name))
    }
}

/// A plain user-facing error: printed as is, without a stack trace.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
