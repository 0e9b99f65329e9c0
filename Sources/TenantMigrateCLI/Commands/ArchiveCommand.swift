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

    struct List: TenantReportCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "list", abstract: "Entries and sizes per tenant and step.")
        }
        @OptionGroup var options: RunnerOptions<Runner>
        @OptionGroup var report: TenantReportOptions

        func perform() async throws {
            try report.show(try await options.withMigrator { migrator, _ in try await migrator.archiveUsage(tenant: report.tenant) }) { usage in
                let formatter = ISO8601DateFormatter()
                TextTable.print(["TENANT", "STEP", "ENTRIES", "SUPERSEDED", "BYTES", "OLDEST", "NEWEST"], usage.map {
                    [$0.tenant, "\($0.usage.stepFrom) → \($0.usage.stepTo)", String($0.usage.entries), String($0.usage.superseded), String($0.usage.bytes),
                     formatter.string(from: $0.usage.oldest), formatter.string(from: $0.usage.newest)]
                })
            }
        }
    }

    struct Restore: RunnerCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "restore", abstract: "Put back the values a rollback did not give back because the app's change won (superseded entries).",
                                 discussion: "Only entries of the tenant's current version are restored (their table and column are that version's); the others wait for it.")
        }
        @OptionGroup var options: RunnerOptions<Runner>
        @Option(help: ArgumentHelp("The tenant.", valueName: "name")) var tenant: String
        @Flag(help: "Restore the superseded entries (required: the app's values they replace are lost).") var superseded = false
        @Flag(help: "Print JSON.") var json = false
        var printsJSON: Bool { json }

        func validate() throws {
            guard superseded else { throw ValidationError("archive restore needs --superseded: it puts superseded values back over the app's changes") }
        }

        func perform() async throws {
            let count = try await options.withMigrator { migrator, _ in try await migrator.restoreSuperseded(tenant: tenant) }
            if json { return try Console.printJSON([tenant: count]) }
            Console.line("\(tenant): \(count) superseded value\(count == 1 ? "" : "s") restored")
        }
    }

    struct Prune: TenantReportCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "prune", abstract: "Delete archive entries older than an age, and the old tables online migrations kept since before then.")
        }
        @OptionGroup var options: RunnerOptions<Runner>
        @Option(name: .long, help: ArgumentHelp("The age: a number with s, m, h or d (30d).", valueName: "age")) var olderThan: String
        @OptionGroup var report: TenantReportOptions

        func validate() throws {
            guard ArchiveAge(olderThan) != nil else { throw ValidationError("--older-than takes a number with s, m, h or d, such as 30d") }
        }

        func perform() async throws {
            let (deleted, retired) = try await options.withMigrator { migrator, _ in try await migrator.prune(olderThan: ArchiveAge(olderThan)!.duration, tenant: report.tenant) }
            try report.show(deleted) { deleted in
                for (tenant, count) in deleted.sorted(by: { $0.key < $1.key }) {
                    Console.line("\(tenant): \(count) entr\(count == 1 ? "y" : "ies") pruned"
                        + (retired[tenant].map { "; the \($0) tables an online migration replaced dropped" } ?? ""))
                }
            }
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
