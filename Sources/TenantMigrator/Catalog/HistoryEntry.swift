import EntityModel
import Foundation
import LibPQ

/// One attempt to create, migrate, adopt or drop a tenant, as recorded in the catalog.
public struct HistoryEntry: Sendable, Codable, Hashable {
    /// What the attempt did: `migrate` moves a tenant to a newer version, `rollback` to an older one;
    /// `pin` pins it (from the previous pin, if any, to the new one), `unpin` clears its pin (from
    /// the version it was pinned at).
    public enum Operation: String, Sendable, Codable {
        case create, migrate, rollback, adopt, drop, pin, unpin

        /// `migrate` or `rollback`, by which way a migration from `source` to `target` goes in `family`.
        static func moving(from source: String, to target: String, in family: ModelFamily) -> Operation {
            (try? family.path(from: source, to: target).direction) == .down ? .rollback : .migrate
        }
    }
    public enum Outcome: String, Sendable, Codable { case succeeded, failed }

    public var tenant: TenantName
    public var family: String
    public var operation: Operation
    public var fromVersion: String?
    public var toVersion: String?
    public var startedAt: Date
    public var finishedAt: Date?
    public var outcome: Outcome
    public var error: String?
    public var sqlState: String?
    /// Counts and timings: statements run, rows moved, milliseconds.
    public var statistics: [String: Double]

    public init(
        tenant: TenantName, family: String, operation: Operation, fromVersion: String?, toVersion: String?,
        startedAt: Date, outcome: Outcome, error: String? = nil, sqlState: String? = nil, statistics: [String: Double] = [:]
    ) {
        self.tenant = tenant
        self.family = family
        self.operation = operation
        self.fromVersion = fromVersion
        self.toVersion = toVersion
        self.startedAt = startedAt
        self.outcome = outcome
        self.error = error
        self.sqlState = sqlState
        self.statistics = statistics
    }

    init(row: Row) throws {
        tenant = try TenantName(try row.decode(String.self, column: "tenant"))
        family = try row.decode(column: "family")
        operation = Operation(rawValue: try row.decode(String.self, column: "operation")) ?? .migrate
        fromVersion = try row.decode(column: "from_version")
        toVersion = try row.decode(column: "to_version")
        startedAt = try row.decode(column: "started_at")
        finishedAt = try row.decode(column: "finished_at")
        outcome = Outcome(rawValue: try row.decode(String.self, column: "outcome")) ?? .failed
        error = try row.decode(column: "error")
        sqlState = try row.decode(column: "sqlstate")
        statistics = try row.decode(PQJSON.self, column: "statistics").decode([String: Double].self)
    }
}
