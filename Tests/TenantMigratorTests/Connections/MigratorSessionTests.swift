import Foundation
import InMemoryLogging
import LibPQ
import Logging
import PostgresTestSupport
import TenantMigrator
import Testing
import TypedSQL

/// Retrying is for a server lost during a run; a server never reached fails at once (issue 20).
@Suite("Migrator sessions") struct MigratorSessionTests {
    /// What the next connection attempts do, in order: refuse, or open a real connection.
    actor Attempts {
        enum Outcome { case refuse, open }
        private var outcomes: [Outcome]
        private(set) var made = 0
        let conninfo: String

        init(_ outcomes: [Outcome], conninfo: String) {
            self.outcomes = outcomes
            self.conninfo = conninfo
        }

        func next() async throws -> AsyncConnection {
            made += 1
            // Past the script: refused, as a server that stays down.
            if (outcomes.isEmpty ? .refuse : outcomes.removeFirst()) == .refuse {
                var error = PQError(kind: .connection, message: "Connection refused. Is the server running on that host and accepting TCP/IP connections?")
                error.host = "127.0.0.1"
                throw error
            }
            return try await AsyncConnection.connect(conninfo)
        }

        func add(_ more: [Outcome]) { outcomes += more }
    }

    static let quiet: Logger = {
        var logger = Logger(label: "MigratorSessionTests")
        logger.logLevel = .critical
        return logger
    }()

    @Test func aServerNeverReachedFailsAtOnceAndOneReachedBeforeIsWaitedFor() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let attempts = Attempts([.refuse], conninfo: conninfo)
            // A long reconnect timeout: a busy machine never runs out of it while the server "comes back".
            let session = MigratorSession(factory: { try await attempts.next() }, reconnectTimeout: .seconds(300), logger: Self.quiet)

            // Never reached: one attempt, no minute of retries (the bound has room for a busy machine).
            let started = ContinuousClock.now
            await #expect(throws: PQError.self) { _ = try await session.connect() }
            #expect(ContinuousClock.now - started < .seconds(60))
            #expect(await attempts.made == 1)

            // Reached once, by this session or a copy of it (a pool's, a fleet run's)...
            await attempts.add([.open])
            try await session.connect().close()

            // ...a refusal is a server going away and coming back: waited for, with backoff.
            await attempts.add([.refuse, .refuse, .open])
            try await session.connect().close()
            #expect(await attempts.made == 5)
        }
    }

    /// Issue 30, item 3: whatever the database's and the role's defaults, a migrator session
    /// prints and parses values with the same settings, opened from a connection string (in the
    /// startup packet), with `options` of its own in it, or from the app's factory.
    @Test func everySessionHasTheFixedSettingsWhateverTheDefaults() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try Connection(conninfo)
            let database = connection.quoteIdentifier(try connection.scalar("SELECT current_database()::text", as: String.self))
            try connection.fixtureScript("""
                ALTER DATABASE \(database) SET extra_float_digits = 0;
                ALTER DATABASE \(database) SET TimeZone = 'Asia/Tokyo';
                ALTER DATABASE \(database) SET DateStyle = 'SQL, DMY';
                ALTER ROLE CURRENT_USER IN DATABASE \(database) SET IntervalStyle = 'sql_standard';
                ALTER ROLE CURRENT_USER IN DATABASE \(database) SET bytea_output = 'escape';
                ALTER DATABASE \(database) SET standard_conforming_strings = off;
                ALTER DATABASE \(database) SET array_nulls = off;
                ALTER DATABASE \(database) SET transform_null_equals = on;
                ALTER DATABASE \(database) SET quote_all_identifiers = on;
                """)
            let withOptions = conninfo + (conninfo.contains("://") ? (conninfo.contains("?") ? "&" : "?") + "options=-c%20work_mem%3D8MB" : " options='-c work_mem=8MB'")
            let sessions = [
                MigratorSession(connectionString: conninfo, logger: Self.quiet),
                MigratorSession(connectionString: withOptions, logger: Self.quiet),
                MigratorSession(factory: { try await AsyncConnection.connect(conninfo) }, logger: Self.quiet),
            ]
            for session in sessions {
                let opened = try await session.connect()
                let settings = try await opened.withConnection { connection in
                    try connection.rows("SELECT current_setting('TimeZone'), current_setting('DateStyle'), current_setting('IntervalStyle'), "
                                        + "current_setting('extra_float_digits'), current_setting('bytea_output'), current_setting('search_path'), 0.30000000000000004::float8::text, "
                                        + "current_setting('standard_conforming_strings'), current_setting('array_nulls'), current_setting('transform_null_equals'), "
                                        + "current_setting('quote_all_identifiers')")
                }
                await opened.close()
                #expect(settings == [["UTC", "ISO, MDY", "postgres", "3", "hex", "\"pg_catalog\",\"pg_temp\"", "0.30000000000000004", "on", "on", "off", "off"]])
            }
        }
    }

    /// A real closed port: libpq's refusal, at once, in sentences.
    @Test func aClosedPortFailsAtOnceWithTheReasonInSentences() async throws {
        let port = try UnusedPort.next()
        // What the session says as it goes: a retry would be a warning "… retrying in … ms". Counting
        // them, not timing the call, keeps the test right on a machine whose cores are busy.
        let log = InMemoryLogHandler()
        var logger = Logger(label: "MigratorSessionTests") { _ in log }
        logger.logLevel = .warning
        let session = MigratorSession(connectionString: "host=127.0.0.1 port=\(port) connect_timeout=5", reconnectTimeout: .seconds(60), logger: logger)
        do {
            _ = try await session.connect()
            Issue.record("nothing listens on port \(port)")
        } catch let error as PQError {
            #expect(error.kind == .connection)
            #expect("\(error)".contains("Connection refused. Is the server running"), "\(error)")
        }
        // Never reached: one attempt, not a minute of retries.
        let retries = log.entries.filter { "\($0.message)".contains("retrying") }
        #expect(retries.isEmpty, "\(retries.map { "\($0.message)" })")
    }
}
