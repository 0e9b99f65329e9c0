import MigrationEngine
import TenantMigrator

/// `check --round-trip`: runs the check and prints each trip and each value that did not come back.
enum RoundTripCommand {
    /// How many differences are printed per trip (all of them are in `--json`).
    static let printedPerTrip = 50

    /// - Throws: ``CLIError`` (exit 1) when a value did not come back or a trip failed.
    static func run(on migrator: TenantMigrator, seed: Int, rows: Int, json: Bool) async throws {
        let report = try await migrator.checkRoundTrips(seed: seed, rowsPerEntity: rows)
        if json {
            try Console.printJSON(report)
        } else {
            print("round trips (seed \(seed), \(rows) row\(rows == 1 ? "" : "s") per entity):")
            for trip in report.trips { printTrip(trip) }
        }
        let failed = report.trips.filter { !$0.passed }
        guard failed.isEmpty else {
            throw CLIError(
                "\(failed.count) of \(report.trips.count) round trips did not give the data back ("
                    + failed.map { $0.path.joined(separator: " → ") }.joined(separator: ", ")
                    + "); declare what a mapping or policy cannot keep under `loses:`, or fix it"
            )
        }
        if !json { print("every round trip gave every value back") }
    }

    private static func printTrip(_ trip: RoundTripResult) {
        let path = trip.path.joined(separator: " → ")
        let excused = trip.excused == 0 ? "" : ", \(trip.excused) declared lost"
        if let error = trip.error {
            print("  \(path): FAILED: \(error)")
        } else if trip.differences.isEmpty {
            print("  \(path): ok (\(trip.rows) rows\(excused))")
        } else {
            print("  \(path): \(trip.differences.count) value\(trip.differences.count == 1 ? "" : "s") did not come back (\(trip.rows) rows\(excused)):")
            for difference in trip.differences.prefix(printedPerTrip) { print("    \(difference)") }
            if trip.differences.count > printedPerTrip { print("    … and \(trip.differences.count - printedPerTrip) more (see --json)") }
        }
    }
}
