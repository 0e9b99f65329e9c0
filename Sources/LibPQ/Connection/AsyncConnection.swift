import Logging

/// The async face of a ``Connection``: an actor whose every call runs on a thread of its own.
///
/// Only one task at a time can use the connection, and the compiler enforces it: the
/// ``Connection`` is not `Sendable`, so it never leaves the actor, and the closures given to
/// ``withConnection(_:)`` are synchronous, so no other call can interleave with them.
///
/// ```swift
/// let database = try await AsyncConnection.connect("postgres://localhost/app")
/// let count = try await database.withConnection { connection in
///     try connection.execute("SELECT count(*) FROM recipe").first!.decode(Int.self, at: 0)
/// }
/// ```
/// Cancelling the calling task cancels the running statement (SQLSTATE 57014).
public actor AsyncConnection {
    private let thread: ConnectionThread
    private var connection: Connection?
    /// Cancels the statement in progress, from anywhere.
    public nonisolated let cancelToken: CancelToken

    public nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }

    private init(thread: ConnectionThread, connection: Connection) {
        self.thread = thread
        self.connection = connection
        self.cancelToken = connection.cancelToken
    }

    /// Connects on a new dedicated thread. See ``Connection/init(_:connectTimeout:applicationName:searchPath:settings:logger:)``.
    public static func connect(
        _ conninfo: String = "",
        connectTimeout: Int = 10,
        applicationName: String = "tenant-migrate",
        searchPath: [String]? = nil,
        settings: [String: String] = [:],
        logger: Logger = Logger(label: "LibPQ")
    ) async throws -> AsyncConnection {
        let thread = ConnectionThread(name: "libpq")
        do {
            return try await Opener(thread: thread).open(conninfo, connectTimeout, applicationName, searchPath, settings, logger)
        } catch {
            thread.shutdown()
            throw error
        }
    }

    /// Runs `body` with exclusive use of the connection, on the connection's thread.
    ///
    /// If the calling task is cancelled meanwhile, the running statement is cancelled on the server.
    public func withConnection<T: Sendable>(_ body: @Sendable (Connection) throws -> T) async throws -> T {
        try Task.checkCancellation()
        let token = cancelToken
        // A closure is isolated to the actor only if it captures `self`; one that did not would run
        // `body` on the global executor. Calling `runExclusively` captures it, and without `await`
        // the compiler proves the call stays on the connection's thread.
        return try await withTaskCancellationHandler {
            try self.runExclusively(body)
        } onCancel: {
            token.cancel()
        }
    }

    /// Runs `body` synchronously on the connection's thread; being synchronous, no other call can
    /// interleave with it.
    private func runExclusively<T: Sendable>(_ body: @Sendable (Connection) throws -> T) throws -> T {
        guard let connection else { throw PQError(kind: .client, message: "the connection is closed") }
        return try body(connection)
    }

    /// Runs `body` in a transaction (see ``Connection/transaction(beginStatement:_:)``).
    public func transaction<T: Sendable>(_ body: @Sendable (Connection) throws -> T) async throws -> T {
        try await withConnection { try $0.transaction(body) }
    }

    /// Closes the connection. Later calls fail.
    public func close() {
        connection = nil
    }

    deinit {
        // The connection is released with the actor (its deinit calls PQfinish); then the thread ends.
        thread.shutdown()
    }

    /// Runs the blocking connect on the new thread, then builds the actor there.
    private actor Opener {
        let thread: ConnectionThread
        nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
        init(thread: ConnectionThread) { self.thread = thread }

        func open(_ conninfo: String, _ timeout: Int, _ name: String, _ searchPath: [String]?, _ settings: [String: String], _ logger: Logger) throws -> AsyncConnection {
            AsyncConnection(
                thread: thread,
                connection: try Connection(conninfo, connectTimeout: timeout, applicationName: name, searchPath: searchPath, settings: settings, logger: logger)
            )
        }
    }
}
