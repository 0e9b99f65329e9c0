import CLibPQ
import Foundation
import Logging
import TypedSQL

/// A connection to PostgreSQL through libpq.
///
/// `Connection` is synchronous and deliberately not `Sendable`: it belongs to one thread at a time.
/// To use it from async code, go through ``AsyncConnection``, which runs every call on a thread of
/// its own, off Swift's cooperative pool.
///
/// ```swift
/// let connection = try Connection("postgres://app@localhost/app")
/// let rows = try connection.execute("SELECT name FROM recipe WHERE type = $1", ["Meat"])
/// for row in rows { print(try row.decode(String.self, column: "name")) }
/// ```
public final class Connection {
    let handle: OpaquePointer
    /// Receives, at `debug` level, every statement this connection runs. Callers may add metadata
    /// for a stretch of work (the tenant, the migration step) and restore it afterwards.
    public var logger: Logger
    /// Cancels the statement running on this connection, from any thread.
    public let cancelToken: CancelToken
    let noticeSink: Unmanaged<NoticeSink>
    var transactionDepth = 0
    /// Whether ``script(_:)`` refuses a query of several statements (see ``Connection/strictOneStatementByDefault``).
    /// Every message this connection sends then carries one statement, as Citus requires.
    public var isStrictOneStatement = Connection.strictOneStatementByDefault
    var savepointCounter = 0
    /// Statements to send at the front of the next round trip (``sendWithNextRoundTrip(_:)``).
    var queuedStatements: [Statement] = [] {
        // A statement taken off the queue unsent (a rollback) has its result handler dropped with it.
        didSet { if !queuedResultHandlers.isEmpty { queuedResultHandlers.removeAll { $0.index >= queuedStatements.count } } }
    }
    /// What reads the results of queued statements (``sendWithNextRoundTrip(_:onResult:)``), by their place in the queue.
    var queuedResultHandlers: [(index: Int, handler: (QueryResult) throws -> Void)] = []
    /// Whether the open transaction's `BEGIN` is still queued, unsent.
    var isBeginQueued = false
    /// Behind ``statistics``.
    var counters = Statistics()
    /// What ``hasExtension(_:)`` has learned, by extension name.
    private var knownExtensions: [String: Bool] = [:]
    /// Whether statements made with ``Statement/preparedPerConnection()`` are prepared (on by
    /// default). Turn it off behind a pooler in transaction mode that does not carry prepared
    /// statements from one server connection to another (PgBouncer before 1.21, or with
    /// `max_prepared_statements = 0`): they are then sent unprepared, as any other.
    public var preparesStatements = true
    /// The name each statement text prepared on this session has, by text.
    var preparedNames: [String: String] = [:]
    /// What judges the statements callers send, while set (``judging(by:_:)``).
    var statementJudge: (any StatementJudge)?

    /// Connects with a conninfo string (`host=/tmp dbname=app`) or a URI (`postgres://user@host:5432/db`).
    ///
    /// An empty string means libpq's own defaults: the PG* environment variables, `.pgpass` and the
    /// service file. The connection string may override `connect_timeout` and `application_name`.
    ///
    /// With `searchPath`, the session's `search_path` is set to exactly those schemas right after
    /// connecting, whatever the role's or the database's defaults say. A tool that must not run
    /// functions or operators planted by other roles passes `["pg_catalog", "pg_temp"]`, so that every
    /// unqualified name resolves to PostgreSQL's own catalog first and never to a user schema.
    ///
    /// `settings` (`["TimeZone": "UTC"]`) are set the same way, over the role's and the database's
    /// defaults: a tool whose values must print and parse alike in every session fixes those
    /// that format them.
    ///
    /// - Throws: ``PQError`` of kind `.connection`, naming the host, the port and the reason.
    ///   Neither the message nor anything else the error holds contains the password.
    public init(
        _ conninfo: String = "",
        connectTimeout: Int = 10,
        applicationName: String = "tenant-migrate",
        searchPath: [String]? = nil,
        settings: [String: String] = [:],
        logger: Logger = Logger(label: "LibPQ")
    ) throws {
        try ConnectionString.validate(conninfo)
        // Earlier keywords are defaults: the expanded conninfo (dbname) overrides them.
        // The search path and settings go into the startup packet (no extra round trip), unless the
        // connection string brings `options` of its own, which then win; see setSession below.
        var startup = settings
        if let searchPath { startup["search_path"] = Connection.searchPathValue(searchPath) }
        let pathOption = startup.isEmpty ? nil : Connection.startupOptions(startup)
        let keywords = ["connect_timeout", "fallback_application_name"] + (pathOption == nil ? [] : ["options"]) + ["dbname"]
        let values = [String(connectTimeout), applicationName] + (pathOption.map { [$0] } ?? []) + [conninfo]
        let connection: OpaquePointer? = withCStringArray(keywords) { keywordPointers in
            withCStringArray(values) { valuePointers in
                PQconnectdbParams(keywordPointers, valuePointers, 1)
            }
        }
        guard let connection else {
            throw PQError(kind: .connection, message: "libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            var error = Connection.connectionError(connection)
            error.message = ConnectionString.scrubbing(error.message, secretsOf: conninfo)
            PQfinish(connection)
            throw error
        }
        guard let cancel = PQgetCancel(connection) else {
            PQfinish(connection)
            throw PQError(kind: .connection, message: "libpq could not create a cancel handle")
        }
        self.handle = connection
        self.logger = logger
        self.cancelToken = CancelToken(cancel)
        self.noticeSink = Unmanaged.passRetained(NoticeSink(logger: logger))
        PQsetNoticeReceiver(connection, noticeReceiver, noticeSink.toOpaque())
        try normalizeSession()
        if let pathOption, connectionOption("options") != pathOption { try setSession(startup) }
    }

    deinit {
        PQfinish(handle)
        noticeSink.release()
    }

    /// The server's version number, such as 150004.
    public var serverVersion: Int { Int(PQserverVersion(handle)) }

    /// A server parameter reported at startup or on change (`server_version`, `TimeZone`, …).
    public func parameterStatus(_ name: String) -> String? {
        PQparameterStatus(handle, name).map { String(cString: $0) }
    }

    /// Whether the connection is still usable.
    public var isHealthy: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Whether a transaction (or savepoint) opened by ``transaction(_:)`` is in progress.
    public var isInTransaction: Bool { transactionDepth > 0 }

    /// The backend process id, as in `pg_stat_activity.pid`.
    public var backendPID: Int32 { PQbackendPID(handle) }

    // MARK: Running statements

    /// Runs one statement through the extended protocol, and returns its rows: `sql` for the tenant
    /// schema `schema` (needed when it names it), its `bind:` values or `parameters` (`$1`, `$2`, …)
    /// sent as parameters. Values are never interpolated into the SQL text.
    ///
    /// - Throws: ``PQError`` with the server's SQLSTATE and diagnostics.
    @discardableResult
    public func execute(_ sql: SQL, schema: String? = nil, _ parameters: [(any PQEncodable)?] = []) throws -> QueryResult {
        try execute(Statement(sql, schema: schema, parameters))
    }

    /// Runs `sql` as it is, unchecked, with `parameters`: for text that really comes from outside.
    @discardableResult
    public func execute(unsafeSQL sql: String, _ parameters: [(any PQEncodable)?] = []) throws -> QueryResult {
        try execute(Statement(unsafeSQL: sql, parameters))
    }

    /// Runs a prepared ``Statement``.
    @discardableResult
    public func execute(_ statement: Statement) throws -> QueryResult {
        try judge([statement])
        if hasQueuedStatements || (statement.isPreparedPerConnection && preparesStatements) { return try pipeline([statement])[0] }
        logStatement(statement.sql)
        countRoundTrip(statements: 1)
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
    ///
    /// `sql` is rendered for the tenant schema `schema` (needed when it names it), its `bind:` values
    /// inline as literals.
    @discardableResult
    public func script(_ sql: SQL, schema: String? = nil) throws -> QueryResult {
        try script(unsafeSQL: sql.renderedInline(schema: schema))
    }

    /// Runs the script `sql` as it is, unchecked: for text that really comes from outside (a file of
    /// the user's).
    @discardableResult
    public func script(unsafeSQL sql: String) throws -> QueryResult {
        try judge([Statement(unsafeSQL: sql)], asScript: true)
        if hasQueuedStatements {
            // One statement in strict mode: it goes out with the queue, in its pipeline.
            guard isStrictOneStatement else { try sendQueuedStatements(); return try script(unsafeSQL: sql) }
            return try refusingSeveralStatements(sql) { try pipeline([Statement(unsafeSQL: sql)])[0] }
        }
        logStatement(sql)
        countRoundTrip(statements: 1)
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
            let checked = QueryResult(handle: result)
            countRows(checked.rowCount)
            return checked
        default:
            var error = PQError(result: result, statement: statement)
            if error.kind == .client, !isHealthy {
                error.message = "the connection was lost: \(error.message)"
            }
            PQclear(result)
            throw error
        }
    }

    /// Logs `sql` at debug level with the backend's pid; a statement after the first of a pipeline
    /// also with its place in it (`pipelined`), so a reader can tell round trips apart.
    func logStatement(_ sql: String, pipelined index: Int = 0) {
        if logger.logLevel <= .debug {
            logger.debug("\(sql)", metadata: index == 0 ? ["pid": "\(backendPID)"] : ["pid": "\(backendPID)", "pipelined": "\(index)"])
        }
    }

    /// Whether extension `name` is installed in the connected database (`pg_extension`).
    ///
    /// Asked of the server once per connection and name, then remembered: an extension created or
    /// dropped later is seen by connections opened after that.
    public func hasExtension(_ name: String) throws -> Bool {
        if let known = knownExtensions[name] { return known }
        let found = try execute(
            "SELECT EXISTS (SELECT FROM pg_catalog.pg_extension WHERE extname = $1)", [name]
        ).first?.decode(Bool.self, at: 0) ?? false
        knownExtensions[name] = found
        return found
    }

    // MARK: Session setup

    /// Makes text results decodable regardless of the server's configuration: UTF-8 and ISO dates.
    /// Costs a round trip only when the server is not already configured that way.
    private func normalizeSession() throws {
        if PQclientEncoding(handle) != pg_char_to_encoding("UTF8") {
            guard PQsetClientEncoding(handle, "UTF8") == 0 else {
                throw PQError.client(handle, "could not set client_encoding to UTF8")
            }
        }
        if !(parameterStatus("DateStyle") ?? "ISO").hasPrefix("ISO") {
            try script("SET DateStyle = ISO")
        }
    }

    /// Sets the session's `search_path` to exactly `schemas`, each quoted, through
    /// `pg_catalog.set_config` so that the call itself cannot be redirected.
    public func setSearchPath(_ schemas: [String]) throws {
        try execute("SELECT pg_catalog.set_config('search_path', $1, false)", [Connection.searchPathValue(schemas)])
    }

    /// Sets each of `settings` (by name; `search_path` as ``searchPathValue(_:)`` gives it) for the
    /// session, in one statement, through `pg_catalog.set_config` so that the call itself cannot be
    /// redirected.
    public func setSession(_ settings: [String: String]) throws {
        let calls = settings.sorted { $0.key < $1.key }.map { name, value -> SQL in
            "pg_catalog.set_config(\(bind: name), \(bind: value), false)"
        }
        try execute("SELECT \(calls, joinedBy: ", ")")
    }

    /// The startup packet's `options` for `settings`: `-c name=value` each, spaces and backslashes escaped.
    static func startupOptions(_ settings: [String: String]) -> String {
        settings.sorted { $0.key < $1.key }.map { name, value in
            "-c \(name)=" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: " ", with: "\\ ")
        }.joined(separator: " ")
    }

    /// `search_path`'s value for `schemas`: each one double-quoted.
    public static func searchPathValue(_ schemas: [String]) -> String {
        schemas.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: ",")
    }

    /// The value libpq used for connection option `keyword`.
    func connectionOption(_ keyword: String) -> String? {
        guard let options = PQconninfo(handle) else { return nil }
        defer { PQconninfoFree(options) }
        var option = options
        while let name = option.pointee.keyword {
            if String(cString: name) == keyword { return option.pointee.val.map { String(cString: $0) } }
            option += 1
        }
        return nil
    }

    static func connectionError(_ connection: OpaquePointer) -> PQError {
        let raw = String(cString: PQerrorMessage(connection)).trimmingTrailingWhitespace()
        var error = PQError(kind: .connection, message: Connection.reason(from: raw))
        error.host = PQhost(connection).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        error.port = PQport(connection).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        if raw.contains("password authentication failed") {
            error.sqlState = .invalidPassword
            error.message = "password authentication failed (wrong password for this user)"
        } else if PQconnectionNeedsPassword(connection) == 1 {
            error.sqlState = .invalidAuthorizationSpecification
            error.message = "the server requires a password and none was given (set it in the URL, PGPASSWORD or ~/.pgpass)"
        }
        if raw.contains("the database system is shutting down") || raw.contains("the database system is starting up")
            || raw.contains("the database system is in recovery mode") {
            error.sqlState = .cannotConnectNow
        } else if raw.contains("too many clients already") || raw.contains("remaining connection slots are reserved") {
            error.sqlState = .tooManyConnections
        }
        if raw.contains("FATAL:"), error.sqlState == nil, raw.contains("does not exist") {
            // The server sends 3D000 for an unknown database and 28000 for an unknown role.
            error.sqlState = raw.contains("FATAL:  database \"") ? .invalidCatalogName : .invalidAuthorizationSpecification
        }
        return error
    }

    /// libpq's message starts with `connection to server at "h" (addr), port p failed: `; keep the
    /// reason, its lines as sentences: `Connection refused. Is the server running on that host…?`
    private static func reason(from message: String) -> String {
        var text = message
        if let range = text.range(of: "failed: ") { text = String(text[range.upperBound...]) }
        let lines = text
            .replacingOccurrences(of: "FATAL:  ", with: "")
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return lines.enumerated().map { index, line in
            index < lines.count - 1 && !(line.last.map { ".?!:;".contains($0) } ?? true) ? line + "." : line
        }.joined(separator: " ")
    }
}

/// Calls `body` with a NULL-terminated array of C strings that live for the duration of the call.
func withCStringArray<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let pointers = strings.map { strdup($0) }
    defer { pointers.forEach { free($0) } }
    return body(pointers.map { UnsafePointer($0) } + [nil])
}
