import MigrationEngine
import TenantMigrator

/// `check --round-trip`'s part of the check: each trip and each value that did not come back.
extension RoundTripReport {
    /// How many differences are printed per trip (all of them are in `--json`).
    static let printedPerTrip = 50

    /// ``CLIError`` (exit 1) when a value did not come back or a trip failed, with advice that fits:
    /// declare a loss under `loses:` for values that did not come back, fix the step for a trip
    /// that failed.
    var failure: CLIError? {
        let failed = trips.filter { !$0.passed }
        return failed.isEmpty ? nil : CLIError(Self.failureSummary(failed, of: trips.count))
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

    /// The trips as text, and a closing line when all of them passed.
    func printText(seed: Int, rows: Int) {
        Console.line("round trips (seed \(seed), \(rows) row\(rows == 1 ? "" : "s") per entity):")
        for trip in trips { Self.printTrip(trip) }
        if failure == nil { Console.line("every round trip gave every value back") }
        Console.line(Self.unseenClasses)
    }

    /// What a round trip cannot show: it makes no app changes between its ways.
    static let unseenClasses = "(no app changes are made between the ways: links whose target row the app replaced and archived values its changes "
        + "supersede show only in `migrate --rehearse` or `rollback --rehearse` of a real tenant)"


    private static func printTrip(_ trip: RoundTripResult) {
        let style = TextStyle.output
        let path = trip.path.joined(separator: " → ")
        let excused = (trip.excused == 0 ? "" : ", \(trip.excused) declared lost") + (trip.statistics?.archiveSummary ?? "")
        if let error = trip.error {
            Console.line("  \(path): \(style.red("FAILED")): \(error)")
        } else if trip.differences.isEmpty {
            Console.line("  \(path): \(style.green("ok")) (\(trip.rows) rows\(excused))")
            for line in trip.statistics?.findingLines ?? [] { Console.line("    \(line)") }
        } else {
            Console.line("  \(path): \(style.red("\(trip.differences.count) value\(trip.differences.count == 1 ? "" : "s") did not come back")) (\(trip.rows) rows\(excused)):")
            for line in trip.statistics?.findingLines ?? [] { Console.line("    \(line)") }
            for difference in trip.differences.prefix(printedPerTrip) { Console.line("    \(difference)") }
            if trip.differences.count > printedPerTrip { Console.line("    … and \(trip.differences.count - printedPerTrip) more (see --json)") }
        }
    }
}
