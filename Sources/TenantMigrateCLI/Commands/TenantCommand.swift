import ArgumentParser
import Foundation
import TenantMigrator

/// `tenant-migrate tenant …`: create, list, drop and adopt tenants.
struct TenantCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tenant",
        abstract: "Create, list, drop, adopt and pin tenants.",
        discussion: """
            Tenant names are 1-48 characters of a-z, 0-9 and _, starting with a letter. A tenant's \
            tables live in the schema tenant_<name>.
            """,
        subcommands: [Create.self, List.self, Drop.self, Adopt.self, Pin.self, Unpin.self]
    )

    struct Create: RunnerCommand {
        static let configuration = CommandConfiguration(abstract: "Create tenants directly at a version (the latest by default).")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The tenants' names.") var names: [String] = []
        @Option(name: .customLong("from-file"), help: ArgumentHelp("Also create the names in this file (one per line; # comments).", valueName: "file"))
        var file: String?
        @Option(help: ArgumentHelp("The version to create them at.", valueName: "v")) var version: String?
        @Option(name: [.short, .long], help: ArgumentHelp("Connections used at once when creating several tenants.", valueName: "n")) var jobs: Int = 4
        @Option(help: ArgumentHelp("The role that owns the tenant schemas and their tables (the migrator role; docs/Security.md). Default: the connecting role.", valueName: "role"))
        var owner: String?
        @Option(name: .customLong("app-role"), help: ArgumentHelp("The tenant's application role: USAGE on its schema and DML on its tables only, never CREATE.", valueName: "role"))
        var appRole: String?
        @Flag(help: "Print the report as JSON (several tenants).") var json = false

        var access: TenantAccess { TenantAccess(owner: owner, appRole: appRole) }

        func perform() async throws {
            var all = names
            if let file {
                let text = try String(contentsOfFile: file, encoding: .utf8)
                all += text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty && !$0.hasPrefix("#") }
            }
            guard !all.isEmpty else { throw ValidationError("name at least one tenant, or --from-file") }
            _ = try all.map(TenantName.init)  // reject bad names before touching anything
            let migrator = try options.makeMigrator()
            if all.count == 1 && !json {
                let record = try await migrator.createTenant(all[0], version: version, access: access)
                print("created tenant \(record.name) (schema \(record.schema)) at \(record.family) \(record.version)")
                return
            }
            let jobs = self.jobs, version = self.version, access = self.access
            try await runFleet(verb: "created", json: json) { control, progress in
                try await migrator.createTenants(all, version: version, access: access, jobs: jobs, control: control, progress: progress)
            }
        }
    }

    struct List: RunnerCommand {
        static let configuration = CommandConfiguration(abstract: "List the tenants.")

        @OptionGroup var options: GlobalOptions
        @Flag(help: "Print JSON.") var json = false

        func perform() async throws {
            let migrator = try options.makeMigrator()
            let tenants = try await migrator.tenants()
            // On Citus, each tenant's node (its distributed schema's tables live on one).
            let placement = try await migrator.citusPlacement()
            if json { return try Console.printJSON(tenants.map { ListedTenant(record: $0, node: placement?.nodeBySchema[$0.schema]) }) }
            TextTable.print(
                ["TENANT", "SCHEMA", "VERSION", "STATE", "PINNED"] + (placement == nil ? [] : ["NODE"]),
                tenants.map { record in
                    [record.name.rawValue, record.schema, record.version, record.state.rawValue, record.pinDescription]
                        + (placement == nil ? [] : [placement?.nodeBySchema[record.schema] ?? "coordinator (not distributed)"])
                }
            )
        }
    }

    struct Drop: RunnerCommand {
        static let configuration = CommandConfiguration(abstract: "Drop a tenant: its schema, all its data, and its record.")

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The tenant's name.") var name: String
        @Flag(name: .customLong("yes-drop-data"), help: "Confirm that the tenant's data is to be deleted.") var confirmed = false

        func perform() async throws {
            _ = try TenantName(name)
            guard confirmed else { throw TenantMigratorError.dropNotConfirmed(try TenantName(name)) }
            try await options.makeMigrator().dropTenant(name, confirmed: confirmed)
            print("dropped tenant \(name)")
        }
    }

    struct Adopt: RunnerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register an existing schema as a tenant, at the version it matches.",
            discussion: "The schema is compared, by introspection, with every version of the family; it is registered at the one it matches exactly, or the closest mismatch is explained."
        )

        @OptionGroup var options: GlobalOptions
        @Argument(help: "The tenant's name.") var name: String
        @Option(help: ArgumentHelp("The existing schema.", valueName: "schema")) var schema: String

        func perform() async throws {
            let record = try await options.makeMigrator().adoptTenant(name, schema: schema)
            print("adopted schema \(record.schema) as tenant \(record.name) at \(record.family) \(record.version)")
        }
    }
}

/// A tenant's record as `tenant list --json` prints it: the record's fields, and on Citus `node`.
struct ListedTenant: Encodable {
    let record: TenantRecord
    let node: String?

    private enum Keys: String, CodingKey { case node }

    func encode(to encoder: any Encoder) throws {
        try record.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encodeIfPresent(node, forKey: .node)
    }
}
