/// An error that reports a SQLSTATE: a server error's own, or the one a refusal or check of the
/// migrator reports in PostgreSQL's terms (55000 for a session under `session_replication_role =
/// replica`, 2BP01 for objects that depend on a tenant's tables, 22003 for values that do not fit).
///
/// Every layer reads it the same way, through ``SQLState/of(_:)``: the fleet's report, the
/// history, metrics and the command line's `sqlState` agree for every error.
public protocol SQLStateReporting: Error {
    /// The SQLSTATE, when there is one.
    var reportedSQLState: SQLState? { get }
}

extension SQLState {
    /// The SQLSTATE `error` reports (``SQLStateReporting``), if any.
    public static func of(_ error: (any Error)?) -> SQLState? {
        (error as? any SQLStateReporting)?.reportedSQLState
    }
}

/// An error that keeps the SQLSTATE it reports in its `sqlState`: always one (a refusal in
/// PostgreSQL's terms), or one where it has one (a server's error). Declaring the conformance is
/// all it takes: ``SQLStateReporting/reportedSQLState`` is `sqlState`.
public protocol SQLStateCarrying: SQLStateReporting {
    /// ``SQLState``, or `SQLState?`.
    associatedtype CarriedSQLState
    /// The SQLSTATE the error reports.
    var sqlState: CarriedSQLState { get }
}

extension SQLStateCarrying where CarriedSQLState == SQLState {
    public var reportedSQLState: SQLState? { sqlState }
}

extension SQLStateCarrying where CarriedSQLState == SQLState? {
    public var reportedSQLState: SQLState? { sqlState }
}

extension PQError: SQLStateCarrying {}
