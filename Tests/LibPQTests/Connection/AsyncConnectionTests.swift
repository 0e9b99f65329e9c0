import Foundation
import LibPQ
import PostgresTestSupport
import Testing

@Suite struct AsyncConnectionTests {
    @Test func runsEveryCallOnTheConnectionsOwnThread() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let database = try await AsyncConnection.connect(conninfo)
            let answer = try await database.withConnection { connection in
                try connection.scalar("SELECT $1::int4 + 1", [Int32(41)], as: Int32.self)
            }
            #expect(answer == 42)
            var threads: Set<UInt> = []
            for _ in 0..<5 {
                threads.insert(try await database.withConnection { _ in UInt(bitPattern: Int(bitPattern: pthread_self())) })
                await Task.yield()
            }
            #expect(threads.count == 1, "one dedicated thread per connection")
            let other = try await AsyncConnection.connect(conninfo)
            let otherThread = try await other.withConnection { _ in UInt(bitPattern: Int(bitPattern: pthread_self())) }
            #expect(!threads.contains(otherThread))
        }
    }

    @Test func twoTasksOnOneConnectionAreSerialized() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let database = try await AsyncConnection.connect(conninfo)
            try await database.withConnection { _ = try $0.script("CREATE TABLE log (task int, step int)") }
            let intervals = Locked<[(task: Int, start: ContinuousClock.Instant, end: ContinuousClock.Instant)]>([])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<2 {
                    group.addTask {
                        for step in 0..<15 {
                            try await database.transaction { connection in
                                let start = ContinuousClock.now
                                // A transaction of several statements: interleaving would break it.
                                try connection.execute("INSERT INTO log VALUES ($1, $2)", [task, step])
                                try connection.execute("SELECT pg_sleep(0.002)")
                                let mine: Int = try connection.scalar("SELECT count(*) FROM log WHERE task = $1", [task])
                                guard mine == step + 1 else { throw TestFailure("task \(task) saw \(mine) rows at step \(step)") }
                                intervals.withLock { $0.append((task, start, .now)) }
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let sorted = intervals.value.sorted { $0.start < $1.start }
            #expect(sorted.count == 30)
            #expect(Set(sorted.map(\.task)) == [0, 1])
            for (earlier, later) in zip(sorted, sorted.dropFirst()) {
                #expect(earlier.end <= later.start, "two bodies overlapped")
            }
            #expect(try await database.withConnection { try $0.scalar("SELECT count(*) FROM log", as: Int.self) } == 30)
        }
    }

    /// Sixteen blocking bodies wait for each other: this only finishes if each runs on a thread of
    /// its own, not on Swift's cooperative pool (as wide as the machine has cores).
    @Test func manyConnectionsWorkInParallel() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let count = 16
            let barrier = Barrier(parties: count)
            let pids = try await withThrowingTaskGroup(of: Int32.self) { group in
                for index in 0..<count {
                    group.addTask {
                        let database = try await AsyncConnection.connect(conninfo)
                        return try await database.withConnection { connection in
                            let pid: Int32 = try connection.scalar("SELECT pg_backend_pid()")
                            guard barrier.arriveAndWait(timeout: 20) else { throw TestFailure("connection \(index) waited alone") }
                            let echoed: Int = try connection.scalar("SELECT $1::int8", [index])
                            guard echoed == index else { throw TestFailure("crossed wires") }
                            return pid
                        }
                    }
                }
                var pids: [Int32] = []
                for try await pid in group { pids.append(pid) }
                return pids
            }
            #expect(pids.count == count)
            #expect(Set(pids).count == count)
        }
    }

    @Test func connectFailureIsAConnectionError() async throws {
        let port = try closedLoopbackPort()
        do {
            _ = try await AsyncConnection.connect("host=127.0.0.1 port=\(port)")
            Issue.record("connected to a closed port")
        } catch let error as PQError {
            #expect(error.kind == .connection)
            #expect(error.port == String(port))
        }
    }

    @Test func closeDisconnectsAndLaterCallsFail() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let database = try await AsyncConnection.connect(conninfo)
            let pid = try await database.withConnection { $0.backendPID }
            await database.close()
            do {
                try await database.withConnection { _ in }
                Issue.record("a closed connection ran a body")
            } catch let error as PQError {
                #expect(error.kind == .client)
                #expect(error.message.contains("closed"))
            }
            let monitor = try Connection(conninfo)
            let gone = try await waitUntil {
                try monitor.scalar("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", [pid], as: Int.self) == 0
            }
            #expect(gone, "the backend is still connected")
        }
    }

    @Test func transactionRollsBackOnError() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let database = try await AsyncConnection.connect(conninfo)
            try await database.withConnection { _ = try $0.script("CREATE TABLE t (id int)") }
            do {
                try await database.transaction { connection in
                    try connection.execute("INSERT INTO t VALUES (1)")
                    throw TestFailure("boom")
                }
            } catch is TestFailure {}
            #expect(try await database.withConnection { try $0.scalar("SELECT count(*) FROM t", as: Int.self) } == 0)
            try await database.transaction { _ = try $0.execute("INSERT INTO t VALUES (2)") }
            #expect(try await database.withConnection { try $0.scalar("SELECT count(*) FROM t", as: Int.self) } == 1)
        }
    }
}
