import ArgumentParser
import Foundation
import TenantMigrator

/// `tenant-migrate archive`: what the tenants' archives hold, restoring superseded values on
/// request, and pruning old entries.
struct ArchiveCommand<Runner: TenantMigrateRunner>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "archive",
            abstract: "Show, restore from or prune the tenants' archives (values steps destroyed or overwrote, kept for rollbacks).",
            subcommands: [List.self, Restore.self, Prune.self]
        )
    }

    struct List: ReportingCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "list", abstract: "Entries and sizes per tenant and step.")
        }
        @OptionGroup var options: RunnerOptions<Runner>
        @OptionGroup var filter: TenantFilterOptions
        @OptionGroup var output: OutputOptions<ArchiveListReport>

        func report() async throws -> ArchiveListReport {
            ArchiveListReport(usage: try await options.withMigrator { migrator, _ in try await migrator.archiveUsage(tenant: try await filter.known(in: migrator)) })
        }
    }

    struct Restore: ReportingCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "restore", abstract: "Put back the values a rollback did not give back because the app's change won (superseded entries).",
                                 discussion: "Only entries of the tenant's current version are restored (their table and column are that version's); the others wait for it.")
        }
        @OptionGroup var options: RunnerOptions<Runner>
        @Option(help: ArgumentHelp("The tenant.", valueName: "name")) var tenant: String
        @Flag(help: "Restore the superseded entries (required: the app's values they replace are lost).") var superseded = false
        @OptionGroup var output: OutputOptions<ArchiveRestoreReport>

        func validate() throws {
            guard superseded else { throw ValidationError("archive restore needs --superseded: it puts superseded values back over the app's changes") }
        }

        func report() async throws -> ArchiveRestoreReport {
            ArchiveRestoreReport(tenant: tenant, restored: try await options.withMigrator { migrator, _ in try await migrator.restoreSuperseded(tenant: tenant) })
        }
    }

    struct Prune: ReportingCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "prune", abstract: "Delete archive entries older than an age, and the old tables online migrations kept since before then.")
        }
        @OptionGroup var options: RunnerOptions<Runner>
        @Option(name: .long, help: ArgumentHelp("The age: a number with s, m, h or d (30d).", valueName: "age")) var olderThan: String
        @OptionGroup var filter: TenantFilterOptions
        @OptionGroup var output: OutputOptions<ArchivePruneReport>

        func validate() throws {
            guard ArchiveAge(olderThan) != nil else { throw ValidationError("--older-than takes a number with s, m, h or d, such as 30d") }
        }

        func report() async throws -> ArchivePruneReport {
            let (deleted, retired) = try await options.withMigrator { migrator, _ in
                try await migrator.prune(olderThan: ArchiveAge(olderThan)!.duration, tenant: try await filter.known(in: migrator))
            }
            return ArchivePruneReport(deleted: deleted, retiredTables: retired)
        }
    }
}

/// `archive prune --older-than`: `30d`, `12h`, `15m`, `90s`.
struct ArchiveAge {
    let duration: Duration

    init?(_ text: String) {
        guard let unit = text.last, let number = Int64(text.dropLast()), number >= 0 else { return nil }
        switch unit {
        case "s": duration = .seconds(number)
        case "m": duration = .seconds(number * 60)
        case "h": duration = .seconds(number * 3600)
        case "d": duration = .seconds(number * 86_400)
        default: return nil
        }
    }
}
