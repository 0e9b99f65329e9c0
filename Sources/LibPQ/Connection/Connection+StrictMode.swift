import CLibPQ
import Foundation

/// Strict one-statement mode: every message carries at most one SQL statement.
///
/// Some servers reject a message of several statements: Citus forwards the client's query string
/// for much DDL to its workers, which refuse it (`42601: cannot insert multiple commands into a
/// prepared statement`). Code meant to run there must send one statement per message (several of
/// them cheaply through ``Connection/pipeline(_:)``). In strict mode, ``Connection/script(_:)``
/// refuses a query of several statements, so tests catch such code before a Citus cluster does.
///
/// The server decides what counts as a second statement: in strict mode a script goes through the
/// extended protocol, whose Parse step rejects more than one statement before running any of it.
/// Quotes, dollar quotes, comments and `BEGIN ATOMIC` bodies are therefore never misread.
extension Connection {
    /// The environment variable that turns strict mode on for every connection of a process (and
    /// of the processes it starts, when they inherit the environment): `LIBPQ_STRICT_ONE_STATEMENT=1`.
    public static let strictOneStatementVariable = "LIBPQ_STRICT_ONE_STATEMENT"

    /// Whether connections opened from now on start in strict one-statement mode. Starts as
    /// ``strictOneStatementVariable`` says; tests turn it on before their first connection.
    public static var strictOneStatementByDefault: Bool {
        get { strictDefault.value }
        set { strictDefault.withLock { $0 = newValue } }
    }

    /// Runs `sql`, a single statement, in strict mode: through the extended protocol, translating
    /// the server's refusal of a second statement into a client error that names the script.
    func strictScript(_ sql: String) throws -> QueryResult {
        try refusingSeveralStatements(sql) { try check(PQexecParams(handle, sql, 0, nil, nil, nil, nil, 0), statement: sql) }
    }

    /// Runs `send`, which sends `sql` through the extended protocol, translating the server's refusal
    /// of a second statement into a client error that names the script.
    func refusingSeveralStatements(_ sql: String, _ send: () throws -> QueryResult) throws -> QueryResult {
        do {
            return try send()
        } catch let error as PQError where error.sqlState == .syntaxError && error.message.contains("multiple commands") {
            var refusal = PQError(
                kind: .client,
                message: "strict one-statement mode refused a query of several statements, starting \"\(Self.firstWords(of: sql))\"; "
                    + "send one statement per message (a pipeline sends several in one round trip)",
                sqlState: .syntaxError
            )
            refusal.statement = sql
            throw refusal
        }
    }

    /// The first few words of `sql`, on one line, for messages.
    static func firstWords(of sql: String, count: Int = 6) -> String {
        let words = sql.split(whereSeparator: \.isWhitespace)
        return words.prefix(count).joined(separator: " ") + (words.count > count ? " …" : "")
    }
}

/// The process-wide default behind ``Connection/strictOneStatementByDefault``.
private let strictDefault = Locked(ProcessInfo.processInfo.environment[Connection.strictOneStatementVariable] == "1")
