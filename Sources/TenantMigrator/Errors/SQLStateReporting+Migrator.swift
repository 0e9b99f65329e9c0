import LibPQ

// The migrator's errors that report a SQLSTATE (``SQLStateReporting``).

extension TenantMigrationError: SQLStateCarrying {}

extension TenantMigratorError: SQLStateReporting {
    public var reportedSQLState: SQLState? {
        if case let .database(_, sqlState?) = self { return SQLState(rawValue: sqlState) }
        return nil
    }
}

extension OnlineRefusal: SQLStateCarrying {}

extension OnlineDependents: SQLStateCarrying {}

extension RetiredTablesInUse: SQLStateCarrying {}

extension ReplicationRole: SQLStateCarrying {}

extension InheritingTables: SQLStateCarrying {}

extension OutsideDependents: SQLStateCarrying {}
