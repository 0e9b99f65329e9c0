import CLibPQ
import Logging

extension Connection {
    /// Runs one statement with parameters (`$1`, `$2`, …) through the extended protocol, and
    /// returns its rows. Values are never interpolated into the SQL text.
    ///
    /// - Throws: ``PQError`` with the server's SQLSTATE and diagnostics.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [(any PQEncodable)?] = []) throws -> QueryResult {
        try execute(Statement(sql, parameters))
    }

    /// Runs a prepared ``Statement``.
    @discardableResult
    public func execute(_ statement: Statement) throws -> QueryResult {
        logStatement(statement.sql)
        let result = statement.withParameterArrays { types, values, lengths, formats in
            PQexecParams(handle, statement.sql, Int32(statement.binds.count), types, values, lengths, formats, 0)
        }
        return try check(result, statement: statement.sql)
    }

    /// Runs a script of one or more statements separated by semicolons, through the simple
    /// protocol (for DDL). Statements run in order and the script stops at the first error; outside
    /// a transaction the whole script is one implicit transaction.
    ///
    /// In strict one-statement mode (``isStrictOneStatement``) the script must be one statement;
    /// one of several is refused, before any of it runs, with a client error of SQLSTATE 42601.
    @discardableResult
    public func script(_ sql: String) throws -> QueryResult {
        logStatement(sql)
        if isStrictOneStatement { return try strictScript(sql) }
        return try check(PQexec(handle, sql), statement: sql)
    }

    /// Turns a libpq result into a ``QueryResult``, or throws its error.
    func check(_ result: OpaquePointer?, statement: String?) throws -> QueryResult {
        guard let result else {
            throw PQError.client(handle, "the connection was lost", statement: statement)
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY, PGRES_SINGLE_TUPLE, PGRES_COPY_IN, PGRES_COPY_OUT:
            return QueryResult(handle: result)
        default:
            var error = PQError(result: result, statement: statement)
            if error.kind == .client, !isHealthy {
                error.message = "the connection was lost: \(error.message)"
            }
            PQclear(result)
            throw error
        }
    }

    func logStatement(_ sql: String) {
        if logger.logLevel <= .debug {
            logger.debug("\(sql)", metadata: ["pid": "\(backendPID)"])
        }
    }
}
