import Foundation
import LibPQ
import PostgresTestSupport
import Testing

@Suite struct CancelTokenTests {
    /// Waits until the backend `pid` is running a statement containing `pg_sleep`.
    private func waitForSleep(pid: Int32, conninfo: String) async throws {
        let monitor = try Connection(conninfo)
        let running = try await waitUntil {
            try monitor.scalar("SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND state = 'active' AND query LIKE '%pg_sleep%'", [pid], as: Int.self) == 1
        }
        try #require(running, "the statement never started")
    }

    @Test func cancelTokenStopsALongSleep() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let database = try await AsyncConnection.connect(conninfo)
            let pid = try await database.withConnection { $0.backendPID }
            async let outcome = database.withConnection { connection -> (PQError?, ContinuousClock.Instant) in
                do {
                    try connection.execute("SELECT pg_sleep(300)")
                    return (nil, .now)
                } catch let error as PQError {
                    return (error, .now)
                }
            }
            try await waitForSleep(pid: pid, conninfo: conninfo)
            // Timed from when the cancel went out, on the thread that sent it: a detached task may
            // wait for a thread of a starved cooperative pool before it runs.
            let (sent, cancelledAt) = await Task.detached { (database.cancelToken.cancel(), ContinuousClock.now) }.value
            #expect(sent)
            let (error, endedAt) = try await outcome
            #expect(error?.sqlState == .queryCanceled)
            #expect(error?.sqlState?.rawValue == "57014")
            // The sleep would last 300 s; a cancel ends it at once. 60 s leaves room for a busy machine.
            #expect(endedAt - cancelledAt < .seconds(60), "took \(endedAt - cancelledAt)")
            // The connection is usable afterwards.
            #expect(try await database.withConnection { try $0.scalar("SELECT 7", as: Int.self) } == 7)
        }
    }

    @Test func cancellingTheTaskCancelsTheStatement() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let database = try await AsyncConnection.connect(conninfo)
            let pid = try await database.withConnection { $0.backendPID }
            let endedAt = Locked<ContinuousClock.Instant?>(nil)
            let task = Task {
                try await database.withConnection { connection in
                    defer { endedAt.withLock { $0 = .now } }
                    try connection.execute("SELECT pg_sleep(300)")
                }
            }
            try await waitForSleep(pid: pid, conninfo: conninfo)
            let cancelledAt = ContinuousClock.now
            task.cancel()
            let result = await task.result
            guard case .failure(let error) = result else {
                Issue.record("the statement was not cancelled")
                return
            }
            let postgresError = try #require(error as? PQError, "\(error)")
            #expect(postgresError.sqlState == .queryCanceled)
            let ended = try #require(endedAt.value)
            // The statement would sleep 300 s; a cancel ends it at once, on the connection's own
            // thread (60 s leaves room for a machine whose cores are busy). When the awaiting task
            // resumes afterwards depends on how busy the cooperative pool is (65 s was seen while
            // other suites held its two threads), so that is not what this test times.
            #expect(ended - cancelledAt < .seconds(60), "took \(ended - cancelledAt)")
            #expect(try await database.withConnection { try $0.scalar("SELECT 8", as: Int.self) } == 8)
        }
    }

    @Test func alreadyCancelledTaskDoesNotRunTheBody() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let database = try await AsyncConnection.connect(conninfo)
            let ran = Locked(false)
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                try await database.withConnection { _ in ran.withLock { $0 = true } }
            }
            let result = await task.result
            guard case .failure(let error) = result else {
                Issue.record("expected CancellationError")
                return
            }
            #expect(error is CancellationError)
            #expect(!ran.value)
        }
    }

    @Test func cancelTokenWorksOnASynchronousConnectionFromAnotherThread() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try Connection(conninfo)
            let token = connection.cancelToken
            let pid = connection.backendPID
            let cancelledAt = Locked<ContinuousClock.Instant?>(nil)
            let canceller = Thread {
                guard let monitor = try? Connection(conninfo) else { return }
                for _ in 0..<500 {
                    let active = (try? monitor.scalar("SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND state = 'active'", [pid], as: Int.self)) ?? 0
                    if active == 1 { break }
                    usleep(10_000)
                }
                cancelledAt.withLock { $0 = .now }
                token.cancel()
            }
            canceller.start()
            let error = try expectPostgresError { try connection.execute("SELECT pg_sleep(300)") }
            let ended = ContinuousClock.now
            #expect(error.sqlState == .queryCanceled)
            let cancelled = try #require(cancelledAt.value)
            // The sleep would last 300 s; 60 s leaves room for a busy machine.
            #expect(ended - cancelled < .seconds(60), "took \(ended - cancelled)")
        }
    }
}
