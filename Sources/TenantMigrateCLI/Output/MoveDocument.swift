import Foundation
import MigrationEngine
import TenantMigrator

/// What `migrate --json` and `rollback --json` print, for one `--tenant` as for `--all`, `--match`
/// or `--limit`: one object,
///
/// ```
/// {"family", "target", "operation", "mode", "startedAt", "milliseconds", "interrupted",
///  "summary": {"total", "<moved>", "skipped", "failed", "notStarted", "pinned"},
///  "entries": [{"tenant", "outcome", "fromVersion", "toVersion", "milliseconds", "rowsAffected", "restoredEntries",
///               "supersededEntries", "error", "sqlState", "online"}],
///  "error": {"message", "sqlState"}}
/// ```
///
/// A tenant that moved, or would have, is said in the run's own word (``movedWord``): `migrated`,
/// `rolled-back`, `would-migrate`, `would-roll-back` (`--dry-run`) or `rehearsed` (`--rehearse`: there
/// and back, every value given back), and the summary counts it under that word in camel case
/// (`rolledBack`, `wouldMigrate`…). The other outcomes are `skipped` (already there), `failed`,
/// `not-started` and `pinned`. `error` is there exactly when the run failed. A run that fails
/// before it has a result prints the ``ErrorDocument`` alone.
///
/// It is the ``FleetReport``'s JSON, with the operation, the error and those words: the report
/// encodes itself, then the document writes its own keys over the report's (`summary`, each
/// entry's `outcome`), so that what a report line carries reaches `--json` as it is.
struct MoveDocument: Encodable {
    /// A line of the report, a tenant that moved said in the run's word.
    struct Entry: Encodable {
        let line: FleetReport.Entry
        let moved: String

        var outcome: String { line.outcome == .migrated ? moved : line.outcome.rawValue }

        func encode(to encoder: any Encoder) throws {
            try line.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(outcome, forKey: .outcome)
            try container.encodeIfPresent(line.error.map(CommandLineMessage.inCommandLineWords), forKey: .error)
        }
    }

    let report: FleetReport
    let operation: MigrationRequest.Operation
    let error: ErrorDocument.Failure?

    private enum Key: String, CodingKey {
        case operation, summary, entries, error, outcome
    }

    /// The word for a tenant that moved, or would have: `migrated`, `rolled-back`,
    /// `would-migrate`, `would-roll-back` or `rehearsed`.
    static func movedWord(_ operation: MigrationRequest.Operation, mode: MigrationRunMode) -> String {
        let up = operation != .rollback
        switch mode {
        case .apply: return up ? "migrated" : "rolled-back"
        case .dryRun: return up ? "would-migrate" : "would-roll-back"
        case .rehearse: return "rehearsed"
        }
    }

    /// A fleet run's report.
    init(_ report: FleetReport, operation: MigrationRequest.Operation) {
        self.init(report, operation: operation, error: Self.failure(of: report, moved: Self.movedWord(operation, mode: report.mode)))
    }

    /// The run's error: the tenants that failed (the first one's SQLSTATE), or the interruption.
    static func failure(of report: FleetReport, moved: String) -> ErrorDocument.Failure? {
        let failed = report.entries.filter { $0.outcome == .failed }
        if !failed.isEmpty {
            return .init(message: "\(failed.count) of \(report.entries.count + report.unlistedCurrent) tenants \(report.mode.isTrial ? "would fail" : "failed"): "
                + failed.map(\.tenant).joined(separator: ", "), sqlState: failed.first?.sqlState)
        }
        guard report.notStarted > 0 || report.interrupted else { return nil }
        return .init(message: "the run was interrupted: \(report.notStarted) tenant\(report.notStarted == 1 ? "" : "s") not started; run the same command again to finish",
                     sqlState: nil)
    }

    /// The results of named tenants, one after the other.
    init(family: String, target: String, operation: MigrationRequest.Operation, mode: MigrationRunMode, startedAt: Date,
         results: [TenantMigrationResult], error: ErrorDocument.Failure?) {
        var report = FleetReport(family: family, target: target, startedAt: startedAt, milliseconds: Date().timeIntervalSince(startedAt) * 1000,
                                 interrupted: false, entries: results.map(FleetReport.Entry.init(result:)))
        report.mode = mode
        self.init(report, operation: operation, error: error)
    }

    private init(_ report: FleetReport, operation: MigrationRequest.Operation, error: ErrorDocument.Failure?) {
        self.report = report
        self.operation = operation
        self.error = error
    }

    /// The report's summary, the tenants that moved counted under the run's word in camel case.
    var summary: [String: Int] {
        let moved = Self.movedWord(operation, mode: report.mode)
        let camel = moved.split(separator: "-").enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.capitalized }.joined()
        return ["total": report.entries.count + report.unlistedCurrent, camel: report.migrated, "skipped": report.skipped,
                "failed": report.failed, "notStarted": report.notStarted, "pinned": report.pinned]
    }

    func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        let moved = Self.movedWord(operation, mode: report.mode)
        try container.encode(operation.rawValue, forKey: .operation)
        try container.encode(summary, forKey: .summary)
        try container.encode(report.entries.map { Entry(line: $0, moved: moved) }, forKey: .entries)
        try container.encodeIfPresent(error, forKey: .error)
    }
}
