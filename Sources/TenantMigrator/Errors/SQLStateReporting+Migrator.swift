import LibPQ

// The migrator's errors that report a SQLSTATE (``SQLStateReporting``).

extension TenantMigrationError: SQLStateCarrying {}

extension TenantMigratorError: SQLStateReporting {
    public var reportedSQLState: SQLState? {
        switch self {
        case let .database(_, sqlState?): return SQLState(rawValue: sqlState)
        case .untrustedCatalog: return "42501"
        default: return nil
        }
    }
}

extension OnlineRefusal: SQLStateCarrying {}

extension OnlineDependents: SQLStateCarrying {}

extension RetiredTablesInUse: SQLStateCarrying {}

extension ReplicationRole: SQLStateCarrying {}

extension InheritingTables: SQLStateCarrying {}

extension OutsideDependents: SQLStateCarrying {}
