import ArgumentParser
import Foundation
import TenantMigrator

/// `tenant-migrate tenant …`: create, list, drop and adopt tenants.
struct TenantCommand<Runner: TenantMigrateRunner>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "tenant",
            abstract: "Create, list, drop, adopt and pin tenants.",
            discussion: """
                Tenant names are 1-48 characters of a-z, 0-9 and _, starting with a letter. A tenant's \
                tables live in the schema tenant_<name>.
                """,
            subcommands: [Create.self, List.self, Drop.self, Adopt.self, Pin.self, Unpin.self]
        )
    }

    struct Create: ReportingCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "create", abstract: "Create tenants directly at a version (the latest by default).")
        }

        @OptionGroup var options: RunnerOptions<Runner>
        @Argument(help: "The tenants' names.") var names: [String] = []
        @Option(name: .customLong("from-file"), help: ArgumentHelp("Also create the names in this file (one a line; blank lines and # comments are skipped).", valueName: "file"))
        var file: String?
        @Option(help: ArgumentHelp("The version to create them at.", valueName: "v")) var version: String?
        @Option(name: [.short, .long], parsing: .unconditional, help: ArgumentHelp("Connections used at once when creating several tenants.", valueName: "n")) var jobs: Int = 4
        @Option(help: ArgumentHelp("The role that owns the tenant schemas and their tables (the migrator role; docs/Security.md). Default: the connecting role.", valueName: "role"))
        var owner: String?
        @Option(name: .customLong("app-role"), help: ArgumentHelp("The tenant's application role: USAGE on its schema and DML on its tables only, never CREATE.", valueName: "role"))
        var appRole: String?
        @OptionGroup var output: OutputOptions<CreateReport>

        var access: TenantAccess { TenantAccess(owner: owner, appRole: appRole) }

        func validate() throws {
            guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
            guard !names.isEmpty || file != nil else { throw ValidationError("name at least one tenant, or --from-file") }
        }

        func report() async throws -> CreateReport {
            let all = try names + (file.map { try TenantListFile(path: $0).names() } ?? [])
            guard !all.isEmpty else { throw CLIError("\(file ?? "") names no tenant (only blank lines and # comments)") }
            _ = try all.map(TenantName.init)  // reject bad names before touching anything
            return try await options.withMigrator { migrator, database in
                // One tenant is created directly and said in a line; JSON is always the fleet's report.
                if all.count == 1 && output.chosen != .json {
                    let record = try await migrator.createTenant(all[0], version: version, access: access)
                    return .named(MessageReport(message: "created tenant \(record.name) (schema \(record.schema)) at \(record.family) \(record.version)\(database.summaryNote)",
                                              details: record))
                }
                let jobs = self.jobs, version = self.version, access = self.access
                let run = FleetRun(verb: "created", activity: "creating", mode: .apply, console: console, databaseNote: database.summaryNote)
                return .fleet(try await run.run { control, progress in
                    try await migrator.createTenants(all, version: version, access: access, jobs: jobs, control: control, progress: progress)
                })
            }
        }
    }

    struct List: ReportingCommand {
        static var configuration: CommandConfiguration { CommandConfiguration(commandName: "list", abstract: "List the tenants.") }

        @OptionGroup var options: RunnerOptions<Runner>
        @OptionGroup var output: OutputOptions<TenantListReport>

        func report() async throws -> TenantListReport {
            try await options.withMigrator { migrator, database in
                // On Citus, each tenant's node (its distributed schema's tables live on one).
                TenantListReport(tenants: try await migrator.tenants(), placement: try await migrator.citusPlacement(), databaseNote: database.summaryNote)
            }
        }
    }

    struct Drop: ReportingCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "drop", abstract: "Drop a tenant: its schema, all its data, and its record.")
        }

        @OptionGroup var options: RunnerOptions<Runner>
        @Argument(help: "The tenant's name.") var name: String
        @Flag(name: .customLong("yes-drop-data"), help: "Confirm that the tenant's data is to be deleted.") var confirmed = false
        @OptionGroup var output: OutputOptions<MessageReport<[String: String]>>

        func report() async throws -> MessageReport<[String: String]> {
            _ = try TenantName(name)
            guard confirmed else { throw TenantMigratorError.dropNotConfirmed(try TenantName(name)) }
            try await options.withMigrator { migrator, _ in try await migrator.dropTenant(name, confirmed: confirmed) }
            return MessageReport(message: "dropped tenant \(name)", details: ["tenant": name])
        }
    }

    struct Adopt: ReportingCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(
                commandName: "adopt",
                abstract: "Register an existing schema as a tenant, at the version it matches.",
                discussion: "The schema is compared, by introspection, with every version of the family; it is registered at the one it matches exactly, or the closest mismatch is explained."
            )
        }

        @OptionGroup var options: RunnerOptions<Runner>
        @Argument(help: "The tenant's name.") var name: String
        @Option(help: ArgumentHelp("The existing schema.", valueName: "schema")) var schema: String
        @OptionGroup var output: OutputOptions<MessageReport<TenantRecord>>

        func report() async throws -> MessageReport<TenantRecord> {
            let record = try await options.withMigrator { migrator, _ in try await migrator.adoptTenant(name, schema: schema) }
            return MessageReport(message: "adopted schema \(record.schema) as tenant \(record.name) at \(record.family) \(record.version)", details: record)
        }
    }
}

/// What `tenant create` prints: a line for one tenant, the fleet's report for several (and for JSON).
typealias CreateReport = MoveReport<MessageReport<TenantRecord>>

/// What `tenant list` prints: the tenants (the JSON is their records, with `node` on Citus).
struct TenantListReport: CommandReport {
    let tenants: [TenantRecord]
    let placement: CitusPlacement?
    let databaseNote: String

    func encode(to encoder: any Encoder) throws {
        try tenants.map { ListedTenant(record: $0, node: placement?.nodeBySchema[$0.schema]) }.encode(to: encoder)
    }

    func printText() {
        TextTable.print(
            ["TENANT", "SCHEMA", "VERSION", "STATE", "PINNED"] + (placement == nil ? [] : ["NODE"]),
            tenants.map { record in
                [record.name.rawValue, record.schema, record.version, record.state.rawValue, record.pinDescription]
                    + (placement == nil ? [] : [placement?.nodeBySchema[record.schema] ?? "coordinator (not distributed)"])
            }
        )
        Console.line("\(tenants.count) tenant\(tenants.count == 1 ? "" : "s")\(databaseNote)")
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
