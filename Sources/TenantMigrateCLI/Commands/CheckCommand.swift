import ArgumentParser
import MigrationEngine
import TenantMigrator
import TypedSQL

/// `tenant-migrate check`: can every adjacent pair of versions migrate, both ways?
struct CheckCommand<Runner: TenantMigrateRunner>: RunnerCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "check",
            abstract: "Check that every adjacent pair of versions can migrate, in both directions (--offline: without a database).",
            discussion: """
                Each pair is mapped (a mapping model exists for it), inferred (the change follows the \
                lightweight rules), or IMPOSSIBLE, with the reasons; what each pair archives or loses \
                is listed as `plan` lists it. Then every filter and value expression of the mapping \
                models is checked against PostgreSQL, on a scratch schema in a transaction that is \
                rolled back: nothing is written. Exits non-zero if any pair is impossible or any \
                expression is not valid SQL. With --offline, needs no database and skips the SQL check. \
                Every format (text, --json, --format markdown|html) runs the same checks and exits the same way.

                With --round-trip, also generates synthetic data for every version (--rows per \
                entity, reproducible with --seed) in a scratch schema, migrates it there and back for \
                every pair of versions i < j along every path shape (one call or one release at a time, \
                each way) with the real mappings, policies and archive, and \
                reports each value that did not come back and is not declared lost (entity, \
                attribute, row, both values); exits 1 if there is one. Touches no tenant; everything \
                is rolled back. See docs/Archive.md.
                """
        )
    }

    @OptionGroup var options: RunnerOptions<Runner>
    @Flag(help: "Check the versions and mappings without a database (skips the SQL check of mapping expressions).")
    var offline = false

    @Flag(name: .long, help: "Also migrate synthetic data of every version there and back again (each adjacent pair, and first → last → first) and report every value that did not come back and is not declared lost. Needs a database; writes nothing.")
    var roundTrip = false

    @Option(help: "The seed of the --round-trip data: the same seed gives the same data.")
    var seed: Int = 1

    @Option(help: "Rows per entity of the --round-trip data.")
    var rows: Int = 50

    @Flag(help: "Print the check as one JSON document (with --round-trip: the round trips' results).") var json = false

    @Option(help: DocumentFormat.help(" With markdown or html, check writes the document, with the SQL check's problems under their step; it exits as the text form does."))
    var format: DocumentFormat = .text

    var printsJSON: Bool { json }

    func validate() throws {
        guard !(offline && roundTrip) else { throw ValidationError("--round-trip needs a database; it cannot run with --offline") }
        guard rows >= 1 else { throw ValidationError("--rows must be at least 1") }
        guard format == .text || !json else { throw ValidationError("--json and --format \(format.rawValue) are alternatives; choose one") }
        guard format == .text || !roundTrip else { throw ValidationError("--format \(format.rawValue) documents the steps; run --round-trip separately") }
    }

    func perform() async throws {
        let trips = RoundTripCommand(seed: seed, rows: rows, json: json)
        if roundTrip, json {
            return try await trips.run(on: try options.makeMigrator())
        }
        let migrator = try options.makeOfflineMigrator()
        let checks = migrator.checkFamily()
        let impossible = checks.filter { !$0.isPossible }
        // Every format runs the same checks: the SQL of the mappings once every step can be planned.
        let sqlChecked = impossible.isEmpty && !offline && !migrator.mappings.isEmpty
        let problems = sqlChecked ? try await options.makeMigrator().checkMappingExpressions() : []
        let failure: CLIError? = impossible.isEmpty ? MappingExpressionCheck.failure(problems) : CLIError(
            "\(impossible.count) of \(checks.count) steps cannot migrate ("
                + impossible.map { "\($0.source) → \($0.destination)" }.joined(separator: ", ")
                // (The text lists the reasons above; the other formats' message carries them.)
                + (format == .text && !json ? "); each reason above says what to add or change"
                    : "):" + impossible.flatMap(Self.reasons).map { "\n  \($0)" }.joined())
        )
        if json {
            try Console.printJSON(CheckDocument(migrator: migrator, checks: checks, sqlChecked: sqlChecked, problems: problems, failure: failure))
            if let failure { throw ReportedFailure(error: failure) }
            return
        }
        if format != .text {
            format.print(document(migrator, sqlChecked: sqlChecked, problems: problems))
            if let failure { throw ReportedFailure(error: failure) }
            return
        }
        Console.line("family \(migrator.family.name): versions \(migrator.family.versionNames.joined(separator: " → "))")
        if checks.isEmpty { Console.line("  (a single version: nothing to migrate)") }
        for check in checks { printCheck(check, migrator) }
        guard impossible.isEmpty else { throw failure! }
        Console.line("all \(checks.count) steps can migrate")
        if let failure { throw failure }
        if sqlChecked { Console.line("every mapping filter and expression is valid SQL") }
        if roundTrip { try await trips.run(on: try options.makeMigrator()) }
    }

    /// The document of every step, the SQL check's problems listed under the step of their mapping.
    private func document(_ migrator: TenantMigrator, sqlChecked: Bool, problems: [MappingExpressionProblem]) -> PlanDocument {
        var document = PlanDocument(checking: migrator.planner)
        for problem in problems {
            guard let model = migrator.mappings.first(where: { $0.file == problem.location.file }),
                  let index = document.sections.firstIndex(where: { $0.heading == "\(model.sourceVersion) → \(model.destinationVersion)" }) else { continue }
            document.sections[index].problems.append(problem.description)
        }
        if offline {
            document.summary += " The mapping expressions were not checked against PostgreSQL (--offline)."
        } else if sqlChecked {
            document.summary += problems.isEmpty ? " Every mapping filter and expression is valid SQL."
                : " \(problems.count) mapping expression\(problems.count == 1 ? " is" : "s are") not valid SQL (listed under \(problems.count == 1 ? "its step" : "their steps"))."
        }
        return document
    }

    /// `v2 → v3: mapping IssueToStatus (…) leaves Status.name empty, …`: why a step cannot migrate.
    private static func reasons(_ check: MigrationPlanner.PairCheck) -> [String] {
        guard case let .impossible(reasons) = check.resolution else { return [] }
        return reasons.map { "\(check.source) → \(check.destination): \($0)" }
    }

    /// `v2 → v1: inferred`, then what the step archives or loses, one item a line.
    private func printCheck(_ check: MigrationPlanner.PairCheck, _ migrator: TenantMigrator) {
        let style = TextStyle.output
        switch check.resolution {
        case let .mapped(origin, _, _):
            Console.line("  \(check.source) → \(check.destination): mapped (\(origin))")
        case .inferred:
            Console.line("  \(check.source) → \(check.destination): inferred")
        case let .impossible(reasons):
            Console.line("  \(check.source) → \(check.destination): \(style.red("IMPOSSIBLE"))")
            reasons.forEach { Console.line("    - \($0)") }
            return
        }
        // The pair's one step, planned as `plan` plans it, so that both say the same.
        guard let step = (try? migrator.plan(from: check.source, to: check.destination))?.steps.first else { return }
        LossListing(step.account).taggedLines.forEach { Console.line("      " + $0) }
    }
}
