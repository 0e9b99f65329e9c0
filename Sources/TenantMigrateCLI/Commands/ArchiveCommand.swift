import ArgumentParser
import Foundation
import TenantMigrator

/// `tenant-migrate archive`: what the tenants' archives hold, and pruning old entries.
struct ArchiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "Show or prune the tenants' archives (values steps destroyed or overwrote, kept for rollbacks).",
        subcommands: [List.self, Prune.self]
    )

    struct List: RunnerCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Entries and sizes per tenant and step.")
        @OptionGroup var options: GlobalOptions
        @Option(help: ArgumentHelp("Only this tenant.", valueName: "name")) var tenant: String?
        @Flag(help: "Print JSON.") var json = false

        func perform() async throws {
            let usage = try await options.makeMigrator().archiveUsage(tenant: tenant)
            if json { return try Console.printJSON(usage) }
            let formatter = ISO8601DateFormatter()
            TextTable.print(["TENANT", "STEP", "ENTRIES", "BYTES", "OLDEST", "NEWEST"], usage.map {
                [$0.tenant, "\($0.usage.stepFrom) → \($0.usage.stepTo)", String($0.usage.entries), String($0.usage.bytes),
                 formatter.string(from: $0.usage.oldest), formatter.string(from: $0.usage.newest)]
            })
        }
    }

    struct Prune: RunnerCommand {
        static let configuration = CommandConfiguration(commandName: "prune", abstract: "Delete archive entries older than an age.")
        @OptionGroup var options: GlobalOptions
        @Option(name: .long, help: ArgumentHelp("The age: a number with s, m, h or d (30d).", valueName: "age")) var olderThan: String
        @Option(help: ArgumentHelp("Only this tenant.", valueName: "name")) var tenant: String?
        @Flag(help: "Print JSON.") var json = false

        /// `30d`, `12h`, `15m`, `90s`.
        static func parseAge(_ text: String) -> Duration? {
            guard let unit = text.last, let number = Int64(text.dropLast()), number >= 0 else { return nil }
            switch unit {
            case "s": return .seconds(number)
            case "m": return .seconds(number * 60)
            case "h": return .seconds(number * 3600)
            case "d": return .seconds(number * 86_400)
            default: return nil
            }
        }

        func validate() throws {
            guard Self.parseAge(olderThan) != nil else { throw ValidationError("--older-than takes a number with s, m, h or d, such as 30d") }
        }

        func perform() async throws {
            let deleted = try await options.makeMigrator().pruneArchive(olderThan: Self.parseAge(olderThan)!, tenant: tenant)
            if json { return try Console.printJSON(deleted) }
            for (tenant, count) in deleted.sorted(by: { $0.key < $1.key }) { print("\(tenant): \(count) entr\(count == 1 ? "y" : "ies") pruned") }
        }
    }
}
