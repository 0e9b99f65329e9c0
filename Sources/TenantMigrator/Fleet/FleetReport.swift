import Foundation
import MigrationEngine

/// The outcome of a fleet run: one line per tenant, and totals.
public struct FleetReport: Sendable, Codable {
    /// What happened to one tenant.
    public struct Entry: Sendable, Codable, Hashable {
        public enum Outcome: String, Sendable, Codable {
            /// Moved to the target.
            case migrated
            /// Already at the target (found by the fleet's catalog query, or by a concurrent runner).
            case skipped
            /// Failed and rolled back: still at its version.
            case failed
            /// Not moved because the run stopped: not started (the run was interrupted, or stopped by
            /// --fail-fast, first), or cancelled in flight by a second stop and rolled back. Still at
            /// its version, with nothing recorded.
            case notStarted = "not-started"
            /// Pinned (``TenantRecord/pinnedVersion``), so left at its version: fleet runs respect pins.
            /// Not a failure.
            case pinned
        }

        public var tenant: String
        public var outcome: Outcome
        public var fromVersion: String
        public var toVersion: String
        public var milliseconds: Double
        public var error: String?
        public var sqlState: String?
        /// Rows the tenant's steps inserted, updated or deleted (when it migrated, or would have).
        public var rowsAffected: Int?
        /// Archived values its way back did not give back, the app's change winning (kept, marked
        /// superseded); nil when none.
        public var supersededEntries: Int? = nil
        /// What else the archive showed (proofs made and withheld, links restored by target, ways
        /// back the archive recorded); nil when nothing.
        public var archive: StepStatistics.ArchiveCounts? = nil
        /// Archived values and rows its way back gave back from the archive; nil when none.
        public var restoredEntries: Int? = nil
        /// How the tenant ran when the run was asked to go online (`--online`, `--online-above`):
        /// its mode (offline too, when found small), progress and the app's waits.
        public var online: OnlineProgress? = nil
    }

    public var family: String
    public var target: String
    public var startedAt: Date
    public var milliseconds: Double
    /// The run stopped taking new tenants early (Ctrl-C, SIGTERM, or --fail-fast).
    public var interrupted: Bool
    /// ``MigrationRunMode/apply``, or a trial whose every tenant was rolled back: then `migrated`
    /// means "would migrate" and `failed` "would fail".
    public var mode: MigrationRunMode = .apply
    public var entries: [Entry]
    /// Tenants the catalog found already at the target and the report does not list one by one
    /// (a run with ``FleetExecutor/listsCurrentTenants`` off): counted in ``skipped``, not in ``entries``.
    public var unlistedCurrent = 0

    public var migrated: Int { entries.filter { $0.outcome == .migrated }.count }
    public var skipped: Int { entries.filter { $0.outcome == .skipped }.count + unlistedCurrent }
    public var failed: Int { entries.filter { $0.outcome == .failed }.count }
    public var notStarted: Int { entries.filter { $0.outcome == .notStarted }.count }
    /// Tenants left alone because they are pinned.
    public var pinned: Int { entries.filter { $0.outcome == .pinned }.count }
    /// Whether every selected tenant is at the target, or pinned.
    public var succeeded: Bool { failed == 0 && notStarted == 0 && !interrupted }

    enum CodingKeys: String, CodingKey {
        case family, target, startedAt, milliseconds, interrupted, mode, entries, summary, unlistedCurrent
    }

    struct Summary: Codable { var total, migrated, skipped, failed, notStarted, pinned: Int }

    public init(family: String, target: String, startedAt: Date, milliseconds: Double, interrupted: Bool, entries: [Entry]) {
        self.family = family
        self.target = target
        self.startedAt = startedAt
        self.milliseconds = milliseconds
        self.interrupted = interrupted
        self.entries = entries
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        family = try container.decode(String.self, forKey: .family)
        target = try container.decode(String.self, forKey: .target)
        startedAt = try container.decode(Date.self, forKey: .startedAt)
        milliseconds = try container.decode(Double.self, forKey: .milliseconds)
        interrupted = try container.decode(Bool.self, forKey: .interrupted)
        mode = try container.decodeIfPresent(MigrationRunMode.self, forKey: .mode) ?? .apply
        entries = try container.decode([Entry].self, forKey: .entries)
        unlistedCurrent = try container.decodeIfPresent(Int.self, forKey: .unlistedCurrent) ?? 0
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(family, forKey: .family)
        try container.encode(target, forKey: .target)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encode(milliseconds, forKey: .milliseconds)
        try container.encode(interrupted, forKey: .interrupted)
        try container.encode(mode, forKey: .mode)
        if unlistedCurrent > 0 { try container.encode(unlistedCurrent, forKey: .unlistedCurrent) }
        try container.encode(Summary(total: entries.count + unlistedCurrent, migrated: migrated, skipped: skipped, failed: failed, notStarted: notStarted, pinned: pinned), forKey: .summary)
        try container.encode(entries, forKey: .entries)
    }
}

extension FleetReport.Entry {
    /// One tenant's result as a line of the report: its outcome, versions and time; what its steps
    /// did, when it moved; its error, when it failed.
    public init(result: TenantMigrationResult) {
        let moved = result.outcome == .migrated, statistics = result.statistics
        let outcome: Outcome = switch result.outcome {
        case .migrated: .migrated
        case .pinned: .pinned
        case .failed: .failed
        case .alreadyCurrent: .skipped
        }
        self.init(tenant: result.tenant.rawValue, outcome: outcome, fromVersion: result.fromVersion, toVersion: result.toVersion,
                  milliseconds: result.milliseconds, error: result.error, sqlState: result.sqlState,
                  rowsAffected: moved ? statistics.rowsAffected : nil,
                  supersededEntries: moved && statistics.supersededEntries > 0 ? statistics.supersededEntries : nil,
                  archive: moved ? statistics.archiveCounts : nil,
                  restoredEntries: moved && statistics.restoredEntries > 0 ? statistics.restoredEntries : nil, online: result.online)
    }
}

/// A snapshot of a fleet run in progress, for progress displays.
public struct FleetProgress: Sendable {
    public var total: Int
    public var done: Int
    public var failed: Int
    public var elapsed: Double
    /// Tenants per second so far.
    public var rate: Double { elapsed > 0 ? Double(done) / elapsed : 0 }
    /// Seconds left at the current rate.
    public var eta: Double? { rate > 0 ? Double(total - done) / rate : nil }
}
