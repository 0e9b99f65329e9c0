import MigrationEngine
import TenantMigrator

/// `check --round-trip`: runs the check and prints each trip and each value that did not come back.
struct RoundTripCommand {
    /// How many differences are printed per trip (all of them are in `--json`).
    static let printedPerTrip = 50

    let seed: Int
    let rows: Int
    let json: Bool

    /// - Throws: ``CLIError`` (exit 1) when a value did not come back or a trip failed, with advice
    ///   that fits: declare a loss under `loses:` for values that did not come back, fix the step
    ///   for a trip that failed.
    func run(on migrator: TenantMigrator) async throws {
        let report = try await migrator.checkRoundTrips(seed: seed, rowsPerEntity: rows)
        if json {
            try Console.printJSON(report)
        } else {
            Console.line("round trips (seed \(seed), \(rows) row\(rows == 1 ? "" : "s") per entity):")
            for trip in report.trips { printTrip(trip) }
        }
        let failed = report.trips.filter { !$0.passed }
        guard failed.isEmpty else {
            let error = CLIError(Self.failureSummary(failed, of: report.trips.count))
            throw json ? ReportedFailure(error: error) : error
        }
        if !json { Console.line("every round trip gave every value back") }
    }

    /// What went wrong, and what to do about each kind of failure.
    static func failureSummary(_ failed: [RoundTripResult], of total: Int) -> String {
        let paths = failed.map { $0.path.joined(separator: " → ") }.joined(separator: ", ")
        var advice: [String] = []
        if failed.contains(where: { $0.error != nil }) {
            advice.append("a trip that failed stopped at an error in a step (a constraint, a type, a policy): "
                + "fix the mapping or the model so that the step can run on any data of the version before it")
        }
        if failed.contains(where: { $0.error == nil && !$0.differences.isEmpty }) {
            advice.append("for values that did not come back, declare what a mapping or policy cannot keep under `loses:`, or make it keep them")
        }
        return "\(failed.count) of \(total) round trips did not give the data back (\(paths)); " + advice.joined(separator: "; ")
    }

    private func printTrip(_ trip: RoundTripResult) {
        let style = TextStyle.output
        let path = trip.path.joined(separator: " → ")
        let excused = (trip.excused == 0 ? "" : ", \(trip.excused) declared lost") + (trip.statistics?.archiveSummary ?? "")
        if let error = trip.error {
            Console.line("  \(path): \(style.red("FAILED")): \(error)")
        } else if trip.differences.isEmpty {
            Console.line("  \(path): \(style.green("ok")) (\(trip.rows) rows\(excused))")
        } else {
            Console.line("  \(path): \(style.red("\(trip.differences.count) value\(trip.differences.count == 1 ? "" : "s") did not come back")) (\(trip.rows) rows\(excused)):")
            for difference in trip.differences.prefix(Self.printedPerTrip) { Console.line("    \(difference)") }
            if trip.differences.count > Self.printedPerTrip { Console.line("    … and \(trip.differences.count - Self.printedPerTrip) more (see --json)") }
        }
    }
}
