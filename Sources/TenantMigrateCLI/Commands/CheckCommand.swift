import ArgumentParser
import MigrationEngine
import TenantMigrator
import TypedSQL

/// `tenant-migrate check`: can every adjacent pair of versions migrate, both ways?
struct CheckCommand<Runner: TenantMigrateRunner>: ReportingCommand {
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

    @Option(parsing: .unconditional, help: "The seed of the --round-trip data: the same seed gives the same data.")
    var seed: Int = 1

    @Option(parsing: .unconditional, help: "Rows per entity of the --round-trip data.")
    var rows: Int = 50

    /// JSON: the check as one document (with --round-trip: the round trips' results); Markdown or
    /// HTML: the document of every step, with the SQL check's problems under their step. Every
    /// format exits as the text form does.
    @OptionGroup var output: OutputOptions<CheckReport>

    func validate() throws {
        guard !(offline && roundTrip) else { throw ValidationError("--round-trip needs a database; it cannot run with --offline") }
        guard rows >= 1 else { throw ValidationError("--rows must be at least 1") }
        guard !roundTrip || output.chosen == .text || output.chosen == .json else {
            throw ValidationError("--format \(output.chosen.rawValue) documents the steps; run --round-trip separately")
        }
    }

    func report() async throws -> CheckReport {
        let format = output.chosen
        if roundTrip, format == .json {
            return try await options.withMigrator(offline: false) { CheckReport(roundTripsOnly: try await $0.checkRoundTrips(seed: seed, rowsPerEntity: rows)) }
        }
        return try await options.withMigrator(offline: offline) { migrator in
            let checks = migrator.checkFamily()
            let impossible = checks.filter { !$0.isPossible }
            // Every format runs the same checks: the SQL of the mappings once every step can be planned.
            let sqlChecked = impossible.isEmpty && !offline && !migrator.mappings.isEmpty
            let problems = sqlChecked ? try await migrator.checkMappingExpressions() : []
            let failure: CLIError? = impossible.isEmpty ? MappingExpressionCheck.failure(problems) : CLIError(
                "\(impossible.count) of \(checks.count) steps cannot migrate ("
                    + impossible.map { "\($0.source) → \($0.destination)" }.joined(separator: ", ")
                    // (The text lists the reasons above; the other formats' message carries them.)
                    + (format == .text ? "); each reason above says what to add or change"
                        : "):" + impossible.flatMap(Self.reasons).map { "\n  \($0)" }.joined())
            )
            let trips = roundTrip && failure == nil ? try await migrator.checkRoundTrips(seed: seed, rowsPerEntity: rows) : nil
            return CheckReport(
                check: CheckDocument(migrator: migrator, checks: checks, sqlChecked: sqlChecked, problems: problems, failure: failure),
                document: format == .markdown || format == .html ? document(migrator, checks: checks, sqlChecked: sqlChecked, problems: problems) : nil,
                roundTrips: trips.map { (report: $0, seed: seed, rows: rows) }, checkFailure: failure
            )
        }
    }

    /// The document of every step (as `checks` planned them), the SQL check's problems listed under
    /// the step of their mapping.
    private func document(_ migrator: TenantMigrator, checks: [MigrationPlanner.PairCheck], sqlChecked: Bool, problems: [MappingExpressionProblem]) -> PlanDocument {
        var document = PlanDocument(checks: checks, of: migrator.family)
        for problem in problems {
            guard let model = migrator.mappings.first(where: { $0.file == problem.location.file }),
                  let index = document.sections.firstIndex(where: { $0.source == model.sourceVersion && $0.destination == model.destinationVersion })
            else { continue }
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
}
