import ArgumentParser
import MigrationEngine
import TenantMigrator

/// `tenant-migrate plan`: the steps, their exact SQL and the data they drop. Runs nothing.
struct PlanCommand: RunnerCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Show the steps, the exact SQL and the destructive changes of a migration, without running it.",
        discussion: """
            With --tenant, plans from the tenant's recorded version to --to (the latest by default), \
            rendered for the tenant's schema. With --from and --to, plans between two versions, \
            rendered for --schema. The filters and expressions of the mapping models on the way \
            are checked against PostgreSQL first (in a transaction that is rolled back). With \
            --offline (and --from), no database is used at all: the SQL is rendered as it would be \
            against one, without that check.
            """
    )

    @OptionGroup var options: GlobalOptions
    @Option(help: ArgumentHelp("Plan for this tenant, from its recorded version.", valueName: "name")) var tenant: String?
    @Option(help: ArgumentHelp("Plan from this version (instead of --tenant).", valueName: "v")) var from: String?
    @Option(help: ArgumentHelp("The target version. Default with --tenant: the latest.", valueName: "v")) var to: String?
    @Option(help: ArgumentHelp("With --from: the schema to render the SQL for.", valueName: "schema")) var schema: String = "<tenant schema>"
    @Flag(help: "With --from: render the plan without a database (no expression check).") var offline = false
    @Flag(help: "Print JSON.") var json = false
    @Option(help: DocumentFormat.help()) var format: DocumentFormat = .text

    func validate() throws {
        switch (tenant, from) {
        case (nil, nil): throw ValidationError("give --tenant NAME [--to V], or --from A --to B")
        case (.some, .some): throw ValidationError("give either --tenant or --from, not both")
        case (nil, .some) where to == nil: throw ValidationError("--from needs --to")
        case (.some, nil) where offline: throw ValidationError("--offline plans between versions: give --from A --to B instead of --tenant")
        default: break
        }
        if json && format != .text { throw ValidationError("--json and --format \(format.rawValue) are alternatives; choose one") }
    }

    func perform() async throws {
        let migrator = try offline ? options.makeOfflineMigrator() : options.makeMigrator()
        let report: MigrationPlanReport
        if let tenant {
            report = try await migrator.planReport(tenant: tenant, to: to)
        } else {
            report = try migrator.planReport(from: from!, to: to!, schema: schema)
        }
        if !offline { try await MappingExpressionCheck.run(on: migrator, from: report.source, to: report.destination) }
        if json { return try Console.printJSON(report) }
        if format != .text {
            let plan = try migrator.plan(from: report.source, to: report.destination)
            return format.print(PlanDocument(plan: plan, schema: report.schema, subject: report.tenant.map { "tenant \($0) (schema \(report.schema))" }))
        }
        let subject = report.tenant.map { "tenant \($0) (schema \(report.schema))" } ?? "schema \(report.schema)"
        guard !report.isEmpty else {
            print("\(subject) is already at \(report.destination); nothing to do")
            return
        }
        print("plan for \(subject): \(report.family) \(report.source) → \(report.destination) (\(report.direction.rawValue)), "
            + "\(report.steps.count) step\(report.steps.count == 1 ? "" : "s")")
        for (index, step) in report.steps.enumerated() {
            print("")
            print("-- step \(index + 1) of \(report.steps.count): \(step.title)")
            for statement in step.statements {
                print(statement.hasSuffix(";") ? statement : statement + ";")
            }
        }
        if !report.archived.isEmpty {
            print("")
            print("ARCHIVED: this plan destroys or overwrites data that goes to the tenant's archive first and comes back on the way down (no consent needed):")
            report.archived.forEach { print("  - \($0.detail)") }
        }
        if !report.lost.isEmpty {
            print("")
            print("WARNING: this plan loses data for good (running it needs --allow-destructive):")
            report.lost.forEach { print("  - \($0.detail)") }
        }
        if !report.archived.isEmpty {
            print("")
            print("With --no-archive, everything listed as archived is lost for good too, and needs --allow-destructive.")
        }
        print("")
        print("nothing was run")
    }
}
