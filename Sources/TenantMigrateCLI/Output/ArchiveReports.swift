import Foundation
import TenantMigrator

/// What `archive list` prints: entries and sizes per tenant and step (the JSON is their array).
struct ArchiveListReport: CommandReport {
    let usage: [ArchiveUsage]

    func encode(to encoder: any Encoder) throws {
        try usage.encode(to: encoder)
    }

    func printText() {
        let formatter = ISO8601DateFormatter()
        TextTable.print(["TENANT", "STEP", "ENTRIES", "SUPERSEDED", "BYTES", "OLDEST", "NEWEST"], usage.map {
            [$0.tenant, "\($0.usage.stepFrom) → \($0.usage.stepTo)", String($0.usage.entries), String($0.usage.superseded), String($0.usage.bytes),
             formatter.string(from: $0.usage.oldest), formatter.string(from: $0.usage.newest)]
        })
    }
}

/// What `archive restore --superseded` prints: how many values came back (JSON: `{"<tenant>": n}`).
struct ArchiveRestoreReport: CommandReport {
    let tenant: String
    let restored: Int

    func encode(to encoder: any Encoder) throws {
        try [tenant: restored].encode(to: encoder)
    }

    func printText() {
        Console.line("\(tenant): \(restored) superseded value\(restored == 1 ? "" : "s") restored")
    }
}

/// What `archive prune` prints: entries deleted per tenant (JSON: `{"<tenant>": n}`), and in text
/// the tables of online migrations dropped with them.
struct ArchivePruneReport: CommandReport {
    let deleted: [String: Int]
    let retiredTables: [String: String]

    func encode(to encoder: any Encoder) throws {
        try deleted.encode(to: encoder)
    }

    func printText() {
        if deleted.isEmpty { Console.line("no tenants: nothing to prune") }
        for (tenant, count) in deleted.sorted(by: { $0.key < $1.key }) {
            Console.line("\(tenant): \(count) entr\(count == 1 ? "y" : "ies") pruned"
                + (retiredTables[tenant].map { "; the \($0) tables an online migration replaced dropped" } ?? ""))
        }
    }
}
