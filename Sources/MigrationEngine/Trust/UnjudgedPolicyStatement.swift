import LibPQ

/// A Swift policy sent a statement that PostgreSQL resolves only when it runs it (a utility
/// statement: DDL, `COPY`, `CALL`, `DO`, `ANALYZE`, `EXPLAIN`, `PREPARE`, …, or a script of
/// several), so nobody can tell before it runs whether it calls code an untrusted role controls;
/// the migrator does not run it (``PolicyStatementTrust``). SQLSTATE 42501.
public struct UnjudgedPolicyStatement: Error, Sendable, CustomStringConvertible {
    /// Who sent it: `mapping M (policy P) of file`.
    public let place: String
    /// The statement, shortened.
    public let statement: String
    /// Why PostgreSQL could not resolve it without running it.
    public let reason: String
    /// What the sender may send instead.
    public var allowance: String = Self.policyAllowance

    /// What a policy may send.
    static let policyAllowance = "A policy's SQL must be one SELECT, INSERT, UPDATE, DELETE or MERGE statement (or a savepoint, FETCH, MOVE, CLOSE, LOCK, "
        + "SET, RESET, SHOW, DECLARE … CURSOR FOR a query): make DDL part of a model version, and write rows with insert and update; see docs/Security.md"
    /// What a step hook may send.
    static let hookAllowance = "A step hook's SQL must be one SELECT, INSERT, UPDATE, DELETE or MERGE statement (or a savepoint, FETCH, MOVE, CLOSE, LOCK, "
        + "SET, RESET, SHOW, DECLARE … CURSOR FOR a query), or ANALYZE or VACUUM of tables of the tenant's that a superuser or the migrator owns; "
        + "make DDL part of a model version; see docs/Security.md"

    /// `42501`, insufficient privilege.
    public var sqlState: SQLState { "42501" }

    public var description: String {
        "\(place) runs `\(statement)`, which PostgreSQL resolves only when it runs it (\(reason)), so nobody can tell before whether it calls code "
            + "a role other than a superuser or the migrator controls; the migrator does not run it (SQLSTATE \(sqlState)). "
            + allowance
    }
}
