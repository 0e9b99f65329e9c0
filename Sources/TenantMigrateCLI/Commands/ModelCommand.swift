import ArgumentParser
import CoreDataImport
import EntityModel
import Foundation
import TenantMigrator

/// `tenant-migrate model …`: bring models in from elsewhere.
struct ModelCommand<Runner: TenantMigrateRunner>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "model",
            abstract: "Bring a model in: import a live schema or a Core Data model bundle as a new family.",
            subcommands: [ImportModelCommand<Runner>.self]
        )
    }
}

/// `tenant-migrate model import`: writes a new family under `--migrations` from a live schema
/// (`--from-schema`) or a Core Data `.xcdatamodeld` bundle (`--xcdatamodeld`), and lists what the
/// model could not carry.
struct ImportModelCommand<Runner: TenantMigrateRunner>: RunnerCommand {
    static var configuration: CommandConfiguration { CommandConfiguration(
        commandName: "import",
        abstract: "Write a new model family from a live schema or from a Core Data .xcdatamodeld bundle.",
        discussion: """
            --from-schema reads the schema's tables, columns, types, defaults, unique constraints, \
            indexes, foreign keys and join tables, and writes one version (--version, v1 by \
            default) that `tenant adopt` accepts for that schema; it then checks the version \
            against the schema and lists what adoption would still refuse. --xcdatamodeld writes \
            one version per .xcdatamodel of the bundle, by name (Model, Model 2, …) or in the \
            order --version-order gives; then run `check`. \
            The family goes to --migrations/--family (by default named after the schema or the \
            bundle) and must not exist yet. Everything the model cannot say is listed with a \
            reason, on stdout and in the version files' comments. See docs/Import.md.
            """
    ) }

    @OptionGroup var options: RunnerOptions<Runner>
    @Option(name: .customLong("from-schema"), help: ArgumentHelp("Import this live schema.", valueName: "schema"))
    var schema: String?
    @Option(name: .customLong("xcdatamodeld"), help: ArgumentHelp("Import this Core Data model bundle.", valueName: "path"))
    var bundle: String?
    @Option(help: ArgumentHelp("With --from-schema: the version's name (default v1).", valueName: "v"))
    var version: String?
    @Option(name: .customLong("version-order"), parsing: .upToNextOption, help: ArgumentHelp(
        "With --xcdatamodeld: the bundle's versions, oldest first, each once (default: by name, numbers as numbers).",
        valueName: "version"))
    var versionOrder: [String] = []

    func validate() throws {
        switch (schema, bundle) {
        case (nil, nil): throw ValidationError("give --from-schema SCHEMA or --xcdatamodeld PATH")
        case (.some, .some): throw ValidationError("give either --from-schema or --xcdatamodeld, not both")
        case (nil, .some) where version != nil:
            throw ValidationError("--version applies to --from-schema; a bundle's versions are named after its .xcdatamodel files")
        case (.some, nil) where !versionOrder.isEmpty:
            throw ValidationError("--version-order applies to --xcdatamodeld")
        default: break
        }
        if let version, version.wholeMatch(of: /[A-Za-z0-9][A-Za-z0-9_.-]*/) == nil {
            throw ValidationError("--version: \"\(version)\" is not a version name (letters, digits, _, . and -, starting with a letter or digit)")
        }
    }

    func perform() async throws {
        if let schema { try await importSchema(schema) }
        if let bundle { try importBundle(bundle) }
    }

    private func importBundle(_ path: String) throws {
        let imported = try CoreDataImporter.importBundle(
            at: URL(fileURLWithPath: path), familyName: options.family, versionOrder: versionOrder.isEmpty ? nil : versionOrder
        )
        let family = imported.family
        let headers = Dictionary(uniqueKeysWithValues: family.versionNames.map { name in
            (name, Self.header(source: imported.sources[name] ?? path, notes: imported.versionNotes[name] ?? []))
        })
        let directory = try family.write(
            into: options.migrationsDirectory,
            manifestHeader: ["Imported from the Core Data model \(URL(fileURLWithPath: path).lastPathComponent) by `\(Runner._commandName) model import`;",
                             "the versions in \(versionOrder.isEmpty ? "the order of their names" : "the order given"), oldest first. Run `\(Runner._commandName) check` to see which steps are inferred."],
            versionHeaders: headers
        )
        Console.line("imported \(path) as family \(family.name): versions \(family.versionNames.joined(separator: " → ")) (oldest first)")
        Console.line("wrote \(directory.path)/family.yaml and \(family.versionNames.map { $0 + ".yaml" }.joined(separator: ", "))")
        Self.printNotes(imported.notes)
        Console.line("`\(Runner._commandName) check --offline --family \(family.name)` tells which steps are inferred and which need a mapping model")
    }

    private func importSchema(_ schema: String) async throws {
        let versionName = version ?? "v1"
        let familyName = options.family ?? ModelNaming.familyName(forSchema: schema)
        let imported = try await SchemaImport.read(
            schema: schema, versionName: versionName,
            connectionString: try options.database().connectionString,
            applicationName: Runner._commandName, logger: options.logger
        )
        let family = try ModelFamily(name: familyName, versions: [imported.version])
        let directory = try family.write(
            into: options.migrationsDirectory,
            manifestHeader: ["Imported from schema \(schema) by `\(Runner._commandName) model import --from-schema \(schema)`."],
            versionHeaders: [versionName: Self.header(source: "schema \(schema)", notes: imported.notes)
                + (imported.isAdoptable ? [] : ["", "Adopting the schema at this version would still find:"] + imported.remainingDifferences.map { "- \($0)" })]
        )
        Console.line("imported schema \(schema) as family \(familyName), version \(versionName): \(imported.version.entities.count) entities")
        Console.line("wrote \(directory.path)/family.yaml and \(versionName).yaml")
        Self.printNotes(imported.notes)
        if imported.isAdoptable {
            Console.line("`\(Runner._commandName) tenant adopt NAME --schema \(schema) --family \(familyName)` registers the schema at \(versionName); "
                + "verify then finds it clean" + (imported.foreignObjects.isEmpty ? "" : " apart from the \(imported.foreignObjects.count) foreign objects listed, "
                    + "which it accepts once the version lists them under foreignObjects: (docs/ModelFormat.md)"))
        } else {
            let count = imported.remainingDifferences.count
            Console.line("adopting the schema at \(versionName) would still fail, with \(count) difference\(count == 1 ? "" : "s"):")
            for difference in imported.remainingDifferences { Console.line("  - \(difference)") }
            Console.line("change the schema (or the version) until there are none; then `\(Runner._commandName) tenant adopt` takes it")
        }
    }

    /// The comment at the top of an imported version file.
    static func header(source: String, notes: [ImportNote]) -> [String] {
        ["Imported from \(source) by `tenant-migrate model import`."]
            + (notes.isEmpty ? [] : ["", "What the import could not carry as it was:"] + notes.map { "- \($0)" })
    }

    static func printNotes(_ notes: [ImportNote]) {
        guard !notes.isEmpty else { return Console.line("nothing was left out") }
        Console.line("\(notes.count) note\(notes.count == 1 ? "" : "s"):")
        // One line each, whatever the names in a note hold.
        for note in notes { Console.line("  - " + TerminalText.line(note.description)) }
    }
}
