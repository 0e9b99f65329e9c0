import LibPQ

// The migrator's errors that report a SQLSTATE (``SQLStateReporting``).

extension TenantMigrationError: SQLStateReporting {
    public var reportedSQLState: SQLState? { sqlState }
}

extension TenantMigratorError: SQLStateReporting {
    public var reportedSQLState: SQLState? {
        if case let .database(_, sqlState?) = self { return SQLState(rawValue: sqlState) }
        return nil
    }
}

extension OnlineRefusal: SQLStateReporting {
    public var reportedSQLState: SQLState? { sqlState }
}

extension OnlineDependents: SQLStateReporting {
    public var reportedSQLState: SQLState? { sqlState }
}

extension RetiredTablesInUse: SQLStateReporting {
    public var reportedSQLState: SQLState? { sqlState }
}

extension ReplicationRole: SQLStateReporting {
    var reportedSQLState: SQLState? { sqlState }
}

extension InheritingTables: SQLStateReporting {
    var reportedSQLState: SQLState? { sqlState }
}

extension OutsideDependents: SQLStateReporting {
    var reportedSQLState: SQLState? { sqlState }
}
