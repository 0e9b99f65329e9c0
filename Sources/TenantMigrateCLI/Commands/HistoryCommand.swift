import ArgumentParser
import Foundation
import TenantMigrator

/// `tenant-migrate history`: the catalog's record of every attempt, newest first.
struct HistoryCommand<Runner: TenantMigrateRunner>: ReportingCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "history",
            abstract: "Show the migration history: every create, migrate, rollback, adopt, pin and drop, newest first.",
            discussion: """
                Each attempt is recorded, failures included, with its versions, its outcome, its time \
                and its error with SQLSTATE. Dry runs and rehearsals record nothing.
                """
        )
    }

    @OptionGroup var options: RunnerOptions<Runner>
    @Option(help: ArgumentHelp("Only this tenant's history.", valueName: "name")) var tenant: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("At most this many entries, the newest.", valueName: "n")) var limit: Int = 50
    @OptionGroup var output: OutputOptions<HistoryReport>

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1") }
        if let tenant { _ = try TenantName(tenant) }
    }

    func report() async throws -> HistoryReport {
        let name = try tenant.map(TenantName.init), limit = self.limit
        return try await options.withMigrator { migrator, database in
            let catalog = migrator.catalog, family = migrator.family.name
            // The pool's plain connection: the facade's withConnection would install the catalog.
            let entries = try await migrator.connectionPool.withConnection { connection in
                // A read-only command never creates the catalog: none yet, no history.
                guard try catalog.isInstalled(on: connection) else {
                    if let name { throw TenantMigratorError.unknownTenant(name) }
                    return [HistoryEntry]()
                }
                let entries = try catalog.history(family: family, tenant: name, limit: limit, on: connection)
                // A dropped tenant keeps its history; a name with neither is a mistake, not an empty history.
                if let name, entries.isEmpty, try catalog.tenant(name, on: connection) == nil { throw TenantMigratorError.unknownTenant(name) }
                return entries
            }
            return HistoryReport(entries: entries, subject: name.map { "tenant \($0)" } ?? "family \(family)", limit: limit, databaseNote: database.summaryNote)
        }
    }
}

/// What `history` prints: the entries, newest first (the JSON is their array).
struct HistoryReport: CommandReport {
    let entries: [HistoryEntry]
    /// `tenant acme` or `family Recipes`.
    let subject: String
    let limit: Int
    let databaseNote: String

    func encode(to encoder: any Encoder) throws {
        try entries.encode(to: encoder)
    }

    func printText() {
        let style = TextStyle.output
        let formatter = ISO8601DateFormatter()
        TextTable.print(
            ["FINISHED", "TENANT", "OPERATION", "FROM", "TO", "OUTCOME", "TIME", "ERROR"],
            entries.map { entry in
                [formatter.string(from: entry.finishedAt ?? entry.startedAt), entry.tenant.rawValue, entry.operation.rawValue,
                 entry.fromVersion ?? "", entry.toVersion ?? "", entry.outcome.rawValue,
                 entry.statistics["ms"].map { Duration.milliseconds($0).commandLineText } ?? "",
                 entry.error.map { TextTable.cut($0, at: 100) + (entry.sqlState.map { " [\($0)]" } ?? "") } ?? ""]
            },
            styles: [5: { $0 == "failed" ? style.red($0) : style.green($0) }]
        )
        Console.line("\(entries.count) entr\(entries.count == 1 ? "y" : "ies") of \(subject)"
            + (entries.count == limit ? " (the newest \(limit); --limit shows more)" : "") + databaseNote)
    }
}
