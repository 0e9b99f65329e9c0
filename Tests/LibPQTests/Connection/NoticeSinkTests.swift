import Foundation
import LibPQ
import Logging
import PostgresTestSupport
import Testing

@Suite struct NoticeSinkTests {
    private func notices(_ store: RecordingLogHandler.Store) -> [RecordingLogHandler.Entry] {
        store.entries.filter { $0.metadata["severity"] != nil }
    }

    @Test func noticesReachTheLogger() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (logger, store) = RecordingLogHandler.logger(level: .info)
            let connection = try Connection(conninfo, logger: logger)
            try connection.script("DO $$ BEGIN RAISE NOTICE 'hello'; END $$")
            let received = notices(store)
            #expect(received.count == 1)
            let notice = try #require(received.first)
            #expect(notice.message == "hello")
            #expect(notice.level == .notice)
            #expect(notice.metadata["severity"]?.description == "NOTICE")
            #expect(notice.metadata["sqlstate"]?.description == "00000")
        }
    }

    @Test func warningsAndInfoKeepTheirLevelAndDetail() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (logger, store) = RecordingLogHandler.logger(level: .info)
            let connection = try Connection(conninfo, logger: logger)
            try connection.execute("DO $$ BEGIN RAISE WARNING 'careful %', 42 USING DETAIL = 'the detail'; RAISE INFO 'for your information'; END $$")
            try connection.execute("DROP TABLE IF EXISTS no_such_table")
            let received = notices(store)
            #expect(received.map(\.message) == ["careful 42", "for your information", "table \"no_such_table\" does not exist, skipping"])
            #expect(received.map(\.level) == [.warning, .info, .notice])
            #expect(received.first?.metadata["detail"]?.description == "the detail")
            #expect(received.first?.metadata["severity"]?.description == "WARNING")
        }
    }

    @Test func noticesBelowTheLoggerLevelAreDropped() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (logger, store) = RecordingLogHandler.logger(level: .warning)
            let connection = try Connection(conninfo, logger: logger)
            try connection.script("DO $$ BEGIN RAISE NOTICE 'quiet'; RAISE WARNING 'loud'; END $$")
            #expect(notices(store).map(\.message) == ["loud"])
        }
    }

    @Test func statementsAreLoggedAtDebugLevel() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (debugLogger, debugStore) = RecordingLogHandler.logger(level: .debug)
            let connection = try Connection(conninfo, logger: debugLogger)
            try connection.execute("SELECT $1::int4 AS logged", [Int32(1)])
            let logged = debugStore.entries.filter { $0.message == "SELECT $1::int4 AS logged" }
            #expect(logged.count == 1)
            #expect(logged.first?.level == .debug)
            #expect(logged.first?.metadata["pid"]?.description == String(connection.backendPID))

            let (infoLogger, infoStore) = RecordingLogHandler.logger(level: .info)
            let quiet = try Connection(conninfo, logger: infoLogger)
            try quiet.execute("SELECT 1")
            #expect(infoStore.entries.isEmpty)
        }
    }
}
