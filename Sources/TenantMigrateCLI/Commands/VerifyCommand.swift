import ArgumentParser
import TenantMigrator

/// `tenant-migrate verify`: compare live schemas with their recorded versions.
struct VerifyCommand: RunnerCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Compare each tenant's live schema with its recorded version; exit non-zero on drift.",
        discussion: """
            Reports missing or extra tables and columns; differences of type, nullability, default, foreign key, \
            unique constraint, check and index; a model file changed since the tenant reached its version; and every \
            object in the tenant schema that the model does not define (triggers, functions, views, sequences, \
            row-level security policies, rules, types, …) or a CREATE right on the schema for another role.
            """
    )

    @OptionGroup var options: GlobalOptions
    @Option(name: .long, help: ArgumentHelp("Verify only this tenant (repeatable). Default: all.", valueName: "name"))
    var tenant: [String] = []
    @Flag(help: "Print JSON.") var json = false

    func perform() async throws {
        let reports = try await options.makeMigrator().verify(tenants: tenant.isEmpty ? nil : tenant)
        if json {
            try Console.printJSON(reports)
        } else {
            for report in reports {
                if report.isClean {
                    print("\(report.tenant): ok (schema \(report.schema) matches \(report.version))")
                    continue
                }
                print("\(report.tenant): DRIFT in schema \(report.schema) against \(report.version)")
                if let mismatch = report.hashMismatch { print("  - \(mismatch)") }
                report.differences.forEach { print("  - \($0)") }
                report.foreignObjects.forEach { print("  - \($0)") }
            }
        }
        let drifted = reports.filter { !$0.isClean }.count
        if drifted > 0 {
            if !json { print("\(drifted) of \(reports.count) tenant\(reports.count == 1 ? "" : "s") drifted") }
            throw ExitCode(2)
        }
    }
}
