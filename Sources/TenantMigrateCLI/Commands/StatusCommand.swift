import ArgumentParser
import TenantMigrator

/// `tenant-migrate status`: every tenant, its version, and whether it is current.
struct StatusCommand<Runner: TenantMigrateRunner>: ReportingCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "status", abstract: "Show every tenant, its version, whether it is at the latest, and its pin.")
    }

    @OptionGroup var options: RunnerOptions<Runner>
    @OptionGroup var output: OutputOptions<StatusReport>

    func report() async throws -> StatusReport {
        try await options.withMigrator { migrator, database in
            StatusReport(statuses: try await migrator.status(), family: migrator.family.name, versions: migrator.family.versionNames,
                         placement: try await migrator.citusPlacement(), databaseNote: database.summaryNote)
        }
    }
}

/// What `status` prints: every tenant's status (the JSON is their array), and in text the family's
/// versions, the Citus workers, a table and a summary line.
struct StatusReport: CommandReport {
    let statuses: [TenantStatus]
    let family: String
    let versions: [String]
    let placement: CitusPlacement?
    let databaseNote: String

    func encode(to encoder: any Encoder) throws {
        try statuses.encode(to: encoder)
    }

    func printText() {
        let style = TextStyle.output
        let latest = versions.last ?? ""
        Console.line("family \(family): versions \(versions.joined(separator: " → ")), latest \(latest)")
        if let placement { Console.line("Citus: \(placement.workers) worker\(placement.workers == 1 ? "" : "s")") }
        TextTable.print(
            ["TENANT", "VERSION", "CURRENT", "STATE", "PINNED"] + (placement == nil ? [] : ["NODE"]) + ["NOTE"],
            statuses.map { status in
                [status.record.name.rawValue, status.record.version, status.isCurrent ? "yes" : "no", status.record.state.rawValue,
                 status.record.pinDescription]
                    + (placement == nil ? [] : [status.node ?? "coordinator (not distributed)"])
                    + [status.modelChanged ? "model file changed since" : (status.record.lastError.map { "last error: \($0.prefix(60))" } ?? "")]
            },
            styles: [2: { $0 == "no" ? style.yellow($0) : $0 }, 3: { $0 == "failed" ? style.red($0) : $0 }]
        )
        let behind = statuses.filter { !$0.isCurrent }.count, pinned = statuses.filter(\.record.isPinned).count
        Console.line("\(statuses.count) tenant\(statuses.count == 1 ? "" : "s"), \(behind) behind \(latest)"
            + (pinned > 0 ? ", \(pinned) pinned" : "") + databaseNote)
    }
}
