import EmbeddedPostgres
import Foundation
import LibPQ
import Logging

/// The PostgreSQL server the tests talk to.
///
/// One private server starts once per test run (an ``EmbeddedPostgres`` cluster under /tmp,
/// reused across runs and stopped when the test process exits), unless `TEST_DATABASE_URL` names a
/// server to use instead. Every test gets a fresh database of its own, dropped afterwards, so tests
/// run safely in parallel.
public enum TestPostgres {
    /// Runs `body` with a connection to a new, empty database.
    public static func withDatabase<T>(_ body: (Connection) async throws -> T) async throws -> T {
        try await withDatabaseURL { conninfo in
            let connection = try Connection(conninfo)
            return try await body(connection)
        }
    }

    /// Runs `body` with the conninfo of a new, empty database, for tests that open several
    /// connections (concurrency, cancel, the CLI).
    ///
    /// At most ``databaseSlots`` such databases exist at once (``DatabaseSlots``); a test that
    /// makes a second one inside the first uses its first one's slot.
    public static func withDatabaseURL<T>(_ body: (String) async throws -> T) async throws -> T {
        if holdsDatabaseSlot { return try await withNewDatabase(body) }
        await slots.acquire()
        do {
            let value = try await $holdsDatabaseSlot.withValue(true) { try await withNewDatabase(body) }
            await slots.release()
            return value
        } catch {
            await slots.release()
            throw error
        }
    }

    /// How many test databases may exist at once: enough to keep two cores busy while most tests
    /// wait, few enough that their connections stay far below the server's 1,000.
    public static let databaseSlots = 64
    private static let slots = DatabaseSlots(count: databaseSlots)
    /// Whether the current test holds a slot already (a database made inside another's body).
    @TaskLocal private static var holdsDatabaseSlot = false

    /// ``withDatabaseURL(_:)`` without its slot. The maintenance connection is open only to create
    /// and to drop the database, not while `body` runs.
    private static func withNewDatabase<T>(_ body: (String) async throws -> T) async throws -> T {
        let server = try await TestServer.shared.start()
        let name = "tm_test_" + UUID().uuidString.prefix(13).lowercased().replacingOccurrences(of: "-", with: "")
        try Connection(server.adminConnectionString).execute("CREATE DATABASE \(id: name) TEMPLATE template0 ENCODING 'UTF8'")
        server.watchdog.made()
        defer {
            _ = try? Connection(server.adminConnectionString).execute("DROP DATABASE \(id: name) WITH (FORCE)")
            server.watchdog.dropped()
        }
        return try await body(server.connectionString(database: name))
    }

    /// The shared server, started if needed.
    public static func server() async throws -> TestServer.Info {
        try await TestServer.shared.start()
    }
}

/// Starts the shared test server once.
public actor TestServer {
    /// How to reach the test server.
    public struct Info: Sendable {
        /// Superuser conninfo for the maintenance database.
        public let adminConnectionString: String
        /// The embedded server, when the tests started one (nil with TEST_DATABASE_URL).
        public let embedded: RunningServer?
        /// Ends the process if its tests stop making progress (``StallWatchdog``).
        let watchdog: StallWatchdog

        init(adminConnectionString: String, embedded: RunningServer?) {
            self.adminConnectionString = adminConnectionString
            self.embedded = embedded
            watchdog = StallWatchdog(adminConnectionString: adminConnectionString)
        }

        /// Conninfo for `database` on the same server, as the same user.
        public func connectionString(database: String) -> String {
            if let embedded { return embedded.connectionString(database: database) }
            // libpq: a later dbname keyword overrides the one in the base string.
            let base = adminConnectionString
            if base.hasPrefix("postgres://") || base.hasPrefix("postgresql://"),
               var components = URLComponents(string: base) {
                components.path = "/" + database
                return components.string ?? base
            }
            return base + " dbname='\(database)'"
        }
    }

    static let shared = TestServer()
    private var starting: Task<Info, any Error>?

    func start() async throws -> Info {
        // The whole suite runs in strict one-statement mode (as Citus requires): every script of
        // several statements that product code sends fails the test that reaches it.
        Connection.strictOneStatementByDefault = true
        if let starting { return try await starting.value }
        let task = Task<Info, any Error> {
            if let url = ProcessInfo.processInfo.environment["TEST_DATABASE_URL"], !url.isEmpty {
                return Info(adminConnectionString: url, embedded: nil)
            }
            let server = try await Self.startEmbedded()
            return Info(adminConnectionString: server.connectionString(), embedded: server)
        }
        starting = task
        return try await task.value
    }

    /// Starts the cluster on a thread of its own (initdb and pg_ctl block for seconds).
    ///
    /// Several test processes may share the cluster (`swift test` runs XCTest and Swift Testing in
    /// separate processes, and developers run suites side by side). Two lock files coordinate them:
    /// `start.lock`, held exclusively while a process starts the server or decides to stop it, and
    /// `users.lock`, held shared by every process using the server. At exit, a process stops the
    /// server only if it can take `users.lock` exclusively, that is, if it is the last user.
    private static func startEmbedded() async throws -> RunningServer {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                do {
                    let directory = "/tmp/tenant-migrator-tests-\(getuid())"
                    let locks = try ClusterLocks(prefix: directory)
                    locks.start.lockExclusive()
                    defer { locks.start.unlock() }
                    let embedded = EmbeddedPostgres(
                        directory: URL(fileURLWithPath: directory),
                        port: 0,
                        listensOnLoopback: true,
                        durability: .fast,
                        settings: ["max_connections": "1000", "max_locks_per_transaction": "256"]
                    )
                    let server = try embedded.start()
                    // The first user of the cluster (no other process holds `users.lock`) removes
                    // what runs killed midway left behind; later users join as they are.
                    if locks.users.tryExclusive() { Leftovers.remove(from: server) }
                    locks.users.lockShared()
                    StopAtExit.register(embedded, locks: locks)
                    continuation.resume(returning: server)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.start()
        }
    }
}

/// The two lock files beside the shared test cluster.
struct ClusterLocks: Sendable {
    let start: FileLock
    let users: FileLock

    init(prefix: String) throws {
        start = try FileLock(path: prefix + ".start.lock")
        users = try FileLock(path: prefix + ".users.lock")
    }
}

/// An advisory `flock` on a file; released by the kernel if the process dies.
final class FileLock: Sendable {
    private let descriptor: Int32

    init(path: String) throws {
        descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw EmbeddedPostgresError(message: "cannot open the lock file \(path)") }
    }

    func lockExclusive() { while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {} }
    func lockShared() { while flock(descriptor, LOCK_SH) != 0 && errno == EINTR {} }
    func unlock() { flock(descriptor, LOCK_UN) }
    /// Takes the lock exclusively only if no other process holds it.
    func tryExclusive() -> Bool { flock(descriptor, LOCK_EX | LOCK_NB) == 0 }
}

/// Stops the test server when the test process exits.
enum StopAtExit {
    /// The server this process started, and the locks it holds on it; set once.
    private static let registered = Locked<(server: EmbeddedPostgres, locks: ClusterLocks)?>(nil)

    static func register(_ embedded: EmbeddedPostgres, locks: ClusterLocks) {
        let first = registered.withLock { registered in
            guard registered == nil else { return false }
            registered = (embedded, locks)
            return true
        }
        guard first else { return }
        atexit {
            guard let (server, locks) = StopAtExit.registered.value else { return }
            // No other process may start or join while we decide.
            locks.start.lockExclusive()
            defer { locks.start.unlock() }
            // Another test process still uses the cluster: leave it running for them.
            guard locks.users.tryExclusive() else { return }
            try? server.stop()
        }
    }
}
