import CLibPQ

/// An error reported by PostgreSQL or by libpq, with every diagnostic field the server sent.
///
/// Server errors carry their ``SQLState``; match them with `catch SQLState.uniqueViolation`.
public struct PQError: Error, Sendable, CustomStringConvertible {
    /// Where the error arose.
    public enum Kind: Sendable, Hashable {
        /// Connecting failed (the server is unreachable, or refused us).
        case connection
        /// The server rejected a statement.
        case server
        /// libpq or this library failed on the client side (lost connection, protocol misuse).
        case client
    }

    public var kind: Kind
    /// The SQLSTATE, when the server sent one (and `28P01` for a rejected password).
    public var sqlState: SQLState?
    /// `ERROR`, `FATAL`, `PANIC` (not localized).
    public var severity: String?
    /// The primary, human-readable message.
    public var message: String
    public var detail: String?
    public var hint: String?
    public var context: String?
    public var schema: String?
    public var table: String?
    public var column: String?
    public var dataType: String?
    public var constraint: String?
    /// 1-based character position in ``statement`` where the error was found.
    public var position: Int?
    /// The statement that failed, when known.
    public var statement: String?
    /// For connection errors: the host (or socket directory) and port that were tried.
    public var host: String?
    public var port: String?

    public init(kind: Kind, message: String, sqlState: SQLState? = nil) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
    }

    public var description: String {
        var text: String
        switch kind {
        case .connection:
            let target = [host.map { "host \($0)" }, port.map { "port \($0)" }].compactMap { $0 }.joined(separator: " ")
            text = "could not connect to PostgreSQL\(target.isEmpty ? "" : " at \(target)"): \(message)"
        case .server:
            text = "\(severity ?? "ERROR") \(sqlState?.rawValue ?? "?????"): \(message)"
        case .client:
            text = message
        }
        var where_: [String] = []
        if let schema, let table { where_.append("table \(schema).\(table)") } else if let table { where_.append("table \(table)") }
        if let column { where_.append("column \(column)") }
        if let constraint { where_.append("constraint \(constraint)") }
        if !where_.isEmpty { text += " (\(where_.joined(separator: ", ")))" }
        if let detail { text += "\nDETAIL: \(detail)" }
        if let hint { text += "\nHINT: \(hint)" }
        return text
    }
}

extension PQError {
    /// Reads every diagnostic field of a failed result.
    init(result: OpaquePointer, statement: String?) {
        func field(_ code: Int32) -> String? {
            guard let value = PQresultErrorField(result, code) else { return nil }
            return String(cString: value)
        }
        let primary = field(TM_PG_DIAG_MESSAGE_PRIMARY)
            ?? String(cString: PQresultErrorMessage(result)).trimmingTrailingWhitespace()
        self.init(kind: .server, message: primary, sqlState: field(TM_PG_DIAG_SQLSTATE).map(SQLState.init(rawValue:)))
        severity = field(TM_PG_DIAG_SEVERITY_NONLOCALIZED) ?? field(TM_PG_DIAG_SEVERITY)
        detail = field(TM_PG_DIAG_MESSAGE_DETAIL)
        hint = field(TM_PG_DIAG_MESSAGE_HINT)
        context = field(TM_PG_DIAG_CONTEXT)
        schema = field(TM_PG_DIAG_SCHEMA_NAME)
        table = field(TM_PG_DIAG_TABLE_NAME)
        column = field(TM_PG_DIAG_COLUMN_NAME)
        dataType = field(TM_PG_DIAG_DATATYPE_NAME)
        constraint = field(TM_PG_DIAG_CONSTRAINT_NAME)
        position = field(TM_PG_DIAG_STATEMENT_POSITION).flatMap { Int($0) }
        self.statement = statement
        if sqlState == nil { kind = .client }
    }

    /// An error read from the connection's last libpq message (no result available).
    static func client(_ connection: OpaquePointer?, _ fallback: String, statement: String? = nil) -> PQError {
        var message = fallback
        if let connection, let text = PQerrorMessage(connection) {
            let trimmed = String(cString: text).trimmingTrailingWhitespace()
            if !trimmed.isEmpty { message = trimmed }
        }
        var error = PQError(kind: .client, message: message)
        error.statement = statement
        return error
    }
}

extension String {
    func trimmingTrailingWhitespace() -> String {
        var view = Substring(self)
        while let last = view.last, last.isWhitespace { view = view.dropLast() }
        return String(view)
    }
}
