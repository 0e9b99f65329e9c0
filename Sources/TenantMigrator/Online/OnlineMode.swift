/// Whether a tenant migrates online: built in a shadow schema while the app goes on reading and
/// writing, then swapped in by one short transaction (docs/Online.md). Part of a
/// ``MigrationRequest``.
///
/// ```swift
/// let request = MigrationRequest.migrate(online: .above(rows: 100_000))
/// ```
public enum OnlineMode: Sendable, Hashable, Codable, CustomStringConvertible {
    /// In one transaction holding every table of the tenant (the default): right for small tenants.
    case off
    /// Online, whatever the tenant's size (`--online`).
    case on
    /// Online for tenants with more rows than this, offline for the rest (`--online-above ROWS`).
    /// A tenant's rows are the sum over its tables of `pg_class.reltuples`, the planner's estimate
    /// kept by ANALYZE and autovacuum; a table never analyzed is counted, up to the bound.
    case above(rows: Int)

    public var description: String {
        switch self {
        case .off: "offline"
        case .on: "online"
        case let .above(rows): "online above \(rows) rows"
        }
    }
}
