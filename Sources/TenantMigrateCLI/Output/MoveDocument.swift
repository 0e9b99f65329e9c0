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
struct MoveDocument: Encodable {
    struct Entry: Encodable {
        var tenant: String
        var outcome: String
        var fromVersion: String
        var toVersion: String
        var milliseconds: Double
        var rowsAffected: Int?
        /// Archived values the way back did not give back, the app's change winning (kept, superseded).
        var supersededEntries: Int?
        /// Proofs by the way back made and withheld, links restored by target, recorded ways back.
        var archive: StepStatistics.ArchiveCounts?
        /// Archived values and rows the run gave back from the archive (counted in `rowsAffected` too).
        var restoredEntries: Int?
        var error: String?
        var sqlState: String?
        var online: OnlineProgress?

        /// A fleet report's line, a tenant that moved said in the run's word (``movedWord``).
        init(_ entry: FleetReport.Entry, moved: String) {
            tenant = entry.tenant
            outcome = entry.outcome == .migrated ? moved : entry.outcome.rawValue
            fromVersion = entry.fromVersion
            toVersion = entry.toVersion
            milliseconds = entry.milliseconds
            rowsAffected = entry.rowsAffected
            supersededEntries = entry.supersededEntries
            archive = entry.archive
            restoredEntries = entry.restoredEntries
            error = entry.error
            sqlState = entry.sqlState
            online = entry.online
        }
    }

    var family: String
    var target: String
    var operation: String
    var mode: MigrationRunMode
    var startedAt: Date
    var milliseconds: Double
    var interrupted: Bool
    var summary: [String: Int]
    var entries: [Entry]
    var unlistedCurrent: Int?
    var error: ErrorDocument.Failure?

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
        let moved = Self.movedWord(operation, mode: report.mode)
        family = report.family
        target = report.target
        self.operation = operation.rawValue
        mode = report.mode
        startedAt = report.startedAt
        milliseconds = report.milliseconds
        interrupted = report.interrupted
        entries = report.entries.map { Entry($0, moved: moved) }
        let unlistedCurrent = report.unlistedCurrent
        self.unlistedCurrent = unlistedCurrent > 0 ? unlistedCurrent : nil
        let camel = moved.split(separator: "-").enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.capitalized }.joined()
        summary = [
            "total": entries.count + unlistedCurrent,
            camel: entries.count { $0.outcome == moved },
            "skipped": entries.count { $0.outcome == "skipped" } + unlistedCurrent,
            "failed": entries.count { $0.outcome == "failed" },
            "notStarted": entries.count { $0.outcome == "not-started" },
            "pinned": entries.count { $0.outcome == "pinned" },
        ]
        self.error = error
    }
}
