import LibPQ

// The engine's errors that report a SQLSTATE (``SQLStateReporting``).

extension ConstraintViolation: SQLStateReporting {
    public var reportedSQLState: SQLState? { underlying.sqlState }
}

extension PolicyError: SQLStateCarrying {}

extension StepHookError: SQLStateCarrying {}

extension UntrustedExpression: SQLStateCarrying {}

extension NarrowedValuesDoNotFit: SQLStateReporting {
    /// `22003`, numeric value out of range.
    public var reportedSQLState: SQLState? { "22003" }
}
