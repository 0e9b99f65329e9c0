import LibPQ

// The engine's errors that report a SQLSTATE (``SQLStateReporting``).

extension ConstraintViolation: SQLStateReporting {
    public var reportedSQLState: SQLState? { underlying.sqlState }
}

extension PolicyError: SQLStateReporting {
    public var reportedSQLState: SQLState? { sqlState }
}

extension StepHookError: SQLStateReporting {
    public var reportedSQLState: SQLState? { sqlState }
}

extension UntrustedExpression: SQLStateReporting {
    public var reportedSQLState: SQLState? { sqlState }
}

extension NarrowedValuesDoNotFit: SQLStateReporting {
    /// `22003`, numeric value out of range.
    public var reportedSQLState: SQLState? { "22003" }
}
