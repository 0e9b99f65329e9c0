import ArgumentParser
import TenantMigrator

/// `tenant-migrate verify`: compare live schemas with their recorded versions.
struct VerifyCommand<Runner: TenantMigrateRunner>: ReportingCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "verify",
            abstract: "Compare each tenant's live schema with its recorded version; exit non-zero on drift.",
            discussion: """
                Reports missing or extra tables and columns; differences of type, nullability, default, foreign key, \
                unique constraint, check and index; a model file changed since the tenant reached its version; and every \
                object in the tenant schema that the model does not define (triggers, functions, views, sequences, \
                row-level security policies, rules, types, …) or a CREATE right on the schema for another role. \
                With --strict, also tables whose columns are in another order than the model's (a rollback or an \
                added attribute appends columns); with --strict --reorder, first puts them back in model order \
                (tables of at most 10,000 rows, each tenant in one transaction under its lock), as a rollback does.
                """
        )
    }

    @OptionGroup var options: RunnerOptions<Runner>
    @Option(name: .long, help: ArgumentHelp("Verify only this tenant (repeatable). Default: all.", valueName: "name"))
    var tenant: [String] = []
    @Flag(help: "Also report tables whose columns are in another order than the model's (for apps that read columns by position: SELECT *, positional decoding).") var strict = false
    @Flag(help: "With --strict: first rebuild the tables whose columns are out of model order (at most 10,000 rows each), then verify.") var reorder = false
    @OptionGroup var output: OutputOptions<VerifyReport>

    func validate() throws {
        if reorder && !strict { throw ValidationError("--reorder puts columns in model order for --strict; give both") }
    }

    func report() async throws -> VerifyReport {
        let tenants = tenant.isEmpty ? nil : tenant
        return try await options.withMigrator { migrator, database in
            let rebuilt = reorder ? try await migrator.reorderColumns(tenants: tenants) : [:]
            return VerifyReport(rebuilt: rebuilt, reports: try await migrator.verify(tenants: tenants, strict: strict), databaseNote: database.summaryNote)
        }
    }
}

/// What `verify` prints: each tenant's drift report (the JSON is their array), and in text the
/// tables `--reorder` rebuilt first. Drift ends the command with exit status 2.
struct VerifyReport: CommandReport {
    /// The tables `--strict --reorder` put back in model order, per tenant.
    let rebuilt: [String: [String]]
    let reports: [VerificationReport]
    let databaseNote: String

    var failure: (any Error)? { reports.contains { !$0.isClean } ? ExitCode(2) : nil }

    func encode(to encoder: any Encoder) throws {
        try reports.encode(to: encoder)
    }

    func printText() {
        for (name, tables) in rebuilt.sorted(by: { $0.key < $1.key }) {
            Console.line("\(name): put the columns of \(tables.joined(separator: ", ")) back in model order")
        }
        let style = TextStyle.output
        for report in reports {
            if report.isClean {
                Console.line("\(report.tenant): \(style.green("ok")) (schema \(report.schema) matches \(report.version))")
                continue
            }
            Console.line("\(report.tenant): \(style.red("DRIFT")) in schema \(report.schema) against \(report.version)")
            if let mismatch = report.hashMismatch { Console.line("  - \(mismatch)") }
            report.differences.forEach { Console.line("  - \($0)") }
            report.foreignObjects.forEach { Console.line("  - \($0)") }
            report.columnOrder?.forEach { Console.line("  - \($0)") }
        }
        let orderOnly = reports.filter { !$0.isClean && $0.differences.isEmpty && $0.hashMismatch == nil && $0.foreignObjects.isEmpty }
        if !orderOnly.isEmpty {
            Console.line("In \(orderOnly.map(\.tenant.rawValue).joined(separator: ", ")), only the order of columns differs from a fresh tenant's: "
                + "the columns, their types, data and constraints match the model. --strict reports it for apps that read columns by position "
                + "(SELECT *, positional decoding); plain verify compares columns by name. PostgreSQL appends the columns a migration adds; "
                + "a rollback puts a table of at most 10,000 rows back in model order, a larger one keeps its order "
                + "(docs/Archive.md, \"Column order after a rollback\"). To rebuild them in model order now: "
                + "tenant-migrate verify --strict --reorder " + orderOnly.map { "--tenant \($0.tenant)" }.joined(separator: " ")
                + " (tables of at most 10,000 rows, each tenant in one transaction under its lock).")
        }
        let drifted = reports.filter { !$0.isClean }.count
        let count = "\(reports.count) tenant\(reports.count == 1 ? "" : "s")"
        Console.line((drifted > 0 ? "\(drifted) of \(count) drifted" : "\(count) verified, no drift") + databaseNote)
    }
}
