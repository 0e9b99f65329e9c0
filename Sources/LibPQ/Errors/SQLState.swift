/// A PostgreSQL SQLSTATE code, such as `23505` (unique_violation).
///
/// A code whose last three characters are `000` names a whole class, as PostgreSQL itself does
/// (`23000` is integrity_constraint_violation). In pattern matching such a class code matches every
/// state of its class, the way GRDB's `ResultCode.SQLITE_CONSTRAINT` matches its extended codes:
///
/// ```swift
/// do {
///     try connection.execute("INSERT …")
/// } catch SQLState.uniqueViolation {
///     // exactly 23505
/// } catch SQLState.integrityConstraintViolation {
///     // any other 23xxx
/// }
/// ```
public struct SQLState: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The five-character code.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The two-character class, such as `23`.
    public var errorClass: Substring { rawValue.prefix(2) }

    /// Whether this code names a whole class (it ends in `000`).
    public var isClass: Bool { rawValue.count == 5 && rawValue.hasSuffix("000") }

    /// Whether `state` is this code, or belongs to it when this code names a class.
    public func matches(_ state: SQLState) -> Bool {
        isClass ? state.errorClass == errorClass : state == self
    }

    public var description: String { rawValue }

    /// Matches a ``PQError`` carrying this state (or a state of this class) in a `catch` or `case`.
    public static func ~= (pattern: SQLState, error: any Error) -> Bool {
        guard let state = (error as? PQError)?.sqlState else { return false }
        return pattern.matches(state)
    }

    /// Matches a state directly in a `switch` over ``PQError/sqlState``.
    public static func ~= (pattern: SQLState, state: SQLState) -> Bool {
        pattern.matches(state)
    }
}

extension SQLState {
    // Class 08: connection exception
    public static let connectionException: SQLState = "08000"
    // Class 22: data exception
    public static let dataException: SQLState = "22000"
    public static let numericValueOutOfRange: SQLState = "22003"
    public static let stringDataRightTruncation: SQLState = "22001"
    public static let invalidTextRepresentation: SQLState = "22P02"
    // Class 23: integrity constraint violation
    public static let integrityConstraintViolation: SQLState = "23000"
    public static let restrictViolation: SQLState = "23001"
    public static let notNullViolation: SQLState = "23502"
    public static let foreignKeyViolation: SQLState = "23503"
    public static let uniqueViolation: SQLState = "23505"
    public static let checkViolation: SQLState = "23514"
    public static let exclusionViolation: SQLState = "23P01"
    // Class 25: invalid transaction state
    public static let invalidTransactionState: SQLState = "25000"
    public static let inFailedSQLTransaction: SQLState = "25P02"
    // Class 28: invalid authorization specification
    public static let invalidAuthorizationSpecification: SQLState = "28000"
    public static let invalidPassword: SQLState = "28P01"
    // Class 3D: invalid catalog name (an unknown database)
    public static let invalidCatalogName: SQLState = "3D000"
    // Class 3F: invalid schema name
    public static let invalidSchemaName: SQLState = "3F000"
    // Class 40: transaction rollback
    public static let transactionRollback: SQLState = "40000"
    public static let serializationFailure: SQLState = "40001"
    public static let deadlockDetected: SQLState = "40P01"
    // Class 42: syntax error or access rule violation
    public static let syntaxErrorOrAccessRuleViolation: SQLState = "42000"
    public static let syntaxError: SQLState = "42601"
    public static let undefinedColumn: SQLState = "42703"
    public static let undefinedTable: SQLState = "42P01"
    public static let duplicateTable: SQLState = "42P07"
    public static let duplicateSchema: SQLState = "42P06"
    public static let duplicateObject: SQLState = "42710"
    // Class 53: insufficient resources
    public static let tooManyConnections: SQLState = "53300"
    // Class 55: object not in prerequisite state
    public static let objectNotInPrerequisiteState: SQLState = "55000"
    public static let lockNotAvailable: SQLState = "55P03"
    // Class 57: operator intervention
    public static let operatorIntervention: SQLState = "57000"
    public static let queryCanceled: SQLState = "57014"
    public static let adminShutdown: SQLState = "57P01"
    public static let cannotConnectNow: SQLState = "57P03"
    // Class P0: PL/pgSQL
    public static let raiseException: SQLState = "P0001"
}
