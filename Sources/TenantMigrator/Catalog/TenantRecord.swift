import Foundation
import LibPQ

/// A tenant as the catalog records it.
public struct TenantRecord: Sendable, Codable, Hashable {
    /// Whether the tenant's last migration succeeded.
    public enum State: String, Sendable, Codable {
        /// At its recorded version, usable.
        case ready
        /// Its last migration failed and was rolled back; it is still at its recorded version.
        case failed
    }

    public var name: TenantName
    /// The PostgreSQL schema holding the tenant's tables.
    public var schema: String
    public var family: String
    /// The model version the tenant's schema is at.
    public var version: String
    /// The version hash recorded when the tenant reached ``version``.
    public var versionHash: String
    public var state: State
    /// The error of the last failed migration, if the tenant is ``State/failed``.
    public var lastError: String?
    public var createdAt: Date
    public var updatedAt: Date
    /// The version the tenant is pinned at, or nil. Fleet runs and `migrateIfNeeded` leave a pinned
    /// tenant where it is; only a migration of that one tenant moves it (and clears the pin).
    public var pinnedVersion: String?
    /// When the pin was set.
    public var pinnedAt: Date?
    /// Why the tenant is pinned (`rolled back`, or the operator's words).
    public var pinnedReason: String?

    /// Whether the tenant is pinned.
    public var isPinned: Bool { pinnedVersion != nil }

    private static let columnsBeforePins: SQL = "name, schema_name, family, version, version_hash, state, last_error, created_at, updated_at"
    /// The columns a record is read from.
    static let columns = columnsBeforePins + ", pinned_version, pinned_at, pinned_reason"
    /// The same from a catalog of version 1, before pins: read-only calls never upgrade the catalog.
    static let columnsOfUnpinnedCatalog = columnsBeforePins
        + ", NULL::text AS pinned_version, NULL::timestamptz AS pinned_at, NULL::text AS pinned_reason"

    /// A record as the catalog would hold it: for plans made without a server (``FleetPlan``).
    public init(
        name: TenantName, schema: String, family: String, version: String, versionHash: String = "", state: State = .ready,
        lastError: String? = nil, createdAt: Date = Date(timeIntervalSince1970: 0), updatedAt: Date = Date(timeIntervalSince1970: 0),
        pinnedVersion: String? = nil, pinnedAt: Date? = nil, pinnedReason: String? = nil
    ) {
        self.name = name
        self.schema = schema
        self.family = family
        self.version = version
        self.versionHash = versionHash
        self.state = state
        self.lastError = lastError
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.pinnedVersion = pinnedVersion
        self.pinnedAt = pinnedAt
        self.pinnedReason = pinnedReason
    }

    init(row: Row) throws {
        name = try TenantName(try row.decode(String.self, column: "name"))
        schema = try row.decode(column: "schema_name")
        family = try row.decode(column: "family")
        version = try row.decode(column: "version")
        versionHash = try row.decode(column: "version_hash")
        state = State(rawValue: try row.decode(String.self, column: "state")) ?? .failed
        lastError = try row.decode(column: "last_error")
        createdAt = try row.decode(column: "created_at")
        updatedAt = try row.decode(column: "updated_at")
        pinnedVersion = try row.decode(column: "pinned_version")
        pinnedAt = try row.decode(column: "pinned_at")
        pinnedReason = try row.decode(column: "pinned_reason")
    }
}
