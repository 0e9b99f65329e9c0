import LibPQ
import TypedSQL

/// Reading the migration history: every attempt to create, migrate, roll back, adopt, pin or drop
/// a tenant, successful or not (`migration_history`; written by ``recordHistory(_:on:)``).
extension TenantCatalog {
    /// The history of `tenant`, oldest first.
    public func history(of tenant: TenantName, on connection: Connection) throws -> [HistoryEntry] {
        try connection.execute(
            "SELECT \(Self.historyColumns) FROM \(table("migration_history")) WHERE tenant = $1 ORDER BY id",
            [tenant.rawValue]
        ).map(HistoryEntry.init(row:))
    }

    /// The latest entries of `family`'s history, newest first: every tenant's, or only `tenant`'s;
    /// at most `limit` of them (nil: all). One query, on the index of the history's ids.
    public func history(family: String, tenant: TenantName? = nil, limit: Int? = nil, on connection: Connection) throws -> [HistoryEntry] {
        try connection.execute(
            """
            SELECT \(Self.historyColumns) FROM \(table("migration_history"))
            WHERE family = $1 AND ($2::text IS NULL OR tenant = $2)
            ORDER BY id DESC LIMIT $3
            """,
            [family, tenant?.rawValue, limit.map { Int64($0) }]
        ).map(HistoryEntry.init(row:))
    }

    /// The columns ``HistoryEntry/init(row:)`` reads.
    private static let historyColumns: SQL = "tenant, family, operation, from_version, to_version, started_at, finished_at, outcome, error, sqlstate, statistics"
}
