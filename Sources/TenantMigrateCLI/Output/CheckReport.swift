import MigrationEngine
import TenantMigrator

/// What `check` prints: every adjacent pair both ways (mapped, inferred or impossible, with what it
/// archives or loses), the SQL check of the mapping expressions, and with --round-trip the round
/// trips; in JSON the ``CheckDocument`` (or, with --round-trip, the round trips alone); in
/// Markdown or HTML the ``PlanDocument`` of every step.
struct CheckReport: CommandReport {
    static var formats: [OutputFormat] { OutputFormat.allCases }

    /// The check; nil for `--round-trip --json`, which prints the round trips alone.
    var check: CheckDocument?
    /// The document of every step, for Markdown and HTML.
    var document: PlanDocument?
    /// The round trips, with the seed and the rows per entity they ran with.
    var roundTrips: (report: RoundTripReport, seed: Int, rows: Int)?
    /// An impossible step, or a mapping expression that is not valid SQL.
    var checkFailure: CLIError?

    init(check: CheckDocument, document: PlanDocument?, roundTrips: (report: RoundTripReport, seed: Int, rows: Int)?, checkFailure: CLIError?) {
        self.check = check
        self.document = document
        self.roundTrips = roundTrips
        self.checkFailure = checkFailure
    }

    /// `check --round-trip --json`: the round trips' results alone.
    init(roundTripsOnly report: RoundTripReport) {
        roundTrips = (report, 0, 0)
    }

    var failure: (any Error)? { checkFailure ?? roundTrips?.report.failure }

    func encode(to encoder: any Encoder) throws {
        if let check { try check.encode(to: encoder) } else { try roundTrips?.report.encode(to: encoder) }
    }

    func document(_ format: OutputFormat) -> String {
        format.render(document!)
    }

    func printText() {
        guard let check else { return }
        Console.line("family \(check.family): versions \(check.versions.joined(separator: " → "))")
        if check.steps.isEmpty { Console.line("  (a single version: nothing to migrate)") }
        check.steps.forEach(Self.printStep)
        guard !check.steps.contains(where: { $0.resolution == "impossible" }) else { return }
        // A mapping expression that does not run fails every migration through its step: the
        // steps can be planned, but not migrate (the error lists the expressions).
        guard check.problems.isEmpty else {
            let count = check.problems.count
            Console.line("all \(check.steps.count) steps can be planned, but \(count) mapping expression\(count == 1 ? " is" : "s are") not valid SQL: "
                + "a step that runs \(count == 1 ? "it" : "them") cannot migrate until \(count == 1 ? "it is" : "they are") fixed")
            return
        }
        Console.line("all \(check.steps.count) steps can migrate")
        guard checkFailure == nil else { return }
        if check.sqlChecked { Console.line("every mapping filter and expression is valid SQL") }
        if let roundTrips { roundTrips.report.printText(seed: roundTrips.seed, rows: roundTrips.rows) }
    }

    /// `v2 → v1: inferred`, then what the step archives or loses, one item a line.
    private static func printStep(_ step: CheckDocument.Step) {
        switch step.resolution {
        case "impossible":
            Console.line("  \(step.source) → \(step.destination): \(TextStyle.output.red("IMPOSSIBLE"))")
            step.reasons.forEach { Console.line("    - \($0)") }
        default:
            Console.line("  \(step.source) → \(step.destination): \(step.mapping.map { "mapped (\($0))" } ?? step.resolution)")
            step.losses.forEach { Console.line("      " + $0) }
        }
    }
}
