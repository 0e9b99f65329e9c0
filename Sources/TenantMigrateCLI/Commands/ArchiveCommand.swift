import ArgumentParser
import Foundation
import TenantMigrator

/// `tenant-migrate archive`: what the tenants' archives hold, and pruning old entries.
struct ArchiveCommand<Runner: TenantMigrateRunner>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "archive",
            abstract: "Show or prune the tenants' archives (values steps destroyed or overwrote, kept for rollbacks).",
            subcommands: [List.self, Prune.self]
        )
    }

    struct List: TenantReportCommand {
        static var configuration: CommandConfiguration {
            CommandConfiguration(commandName: "list", abstract: "Entries and sizes per tenant and step.")
        }
        @OptionGroup var options: RunnerOptions<Runner>
        @OptionGroup var report: TenantReportOptions

        func perform() async throws {
            try report.show(try await options.makeMigrator().archiveUsage(tenant: report.tenant)) { usage in
                let formatter = ISO8601DateFormatter()
                TextTable.print(["TENANT", "STEP", "ENTRIES", "BYTES", "OLDEST", "NEWEST"], usage.map {
                    [$0.tenant, "\($0.usage.stepFrom) → \($0.usage.stepTo)", String($0.usage.entries), String($0.usage.bytes),
                     formatter.string(from: $0.usage.oldest), formatter.string(from: $0.usage.newest)]
                })
            }
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
            let (deleted, retired) = try await options.makeMigrator().prune(olderThan: ArchiveAge(olderThan)!.duration, tenant: report.tenant)
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
