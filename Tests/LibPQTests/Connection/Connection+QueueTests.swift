import Foundation
import LibPQ
import PostgresTestSupport
import Testing

/// Statements queued with `sendWithNextRoundTrip` travel with the connection's next round trip, and
/// a transaction's BEGIN and COMMIT with its statements: counted by the connection itself
/// (`Connection.statistics`), checked against what the server holds afterwards.
@Suite struct ConnectionQueueTests {
    @Test func queuedStatementsGoWithTheNextRoundTripAndBeginAndCommitWithTheirStatements() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE item (id int PRIMARY KEY)")
            connection.resetStatistics()
            let seen = try connection.transaction { connection in
                try connection.sendWithNextRoundTrip(Statement("INSERT INTO item VALUES (1)"))
                try connection.sendWithNextRoundTrip(Statement("INSERT INTO item VALUES ($1)", [Int32(2)]))
                return try connection.scalar("SELECT count(*)::int FROM item", as: Int.self)
            }
            #expect(seen == 2, "the queued inserts ran before the query that followed them")
            // BEGIN, both inserts and the query in one round trip; COMMIT in a second.
            #expect(connection.statistics.roundTrips == 2)
            #expect(connection.statistics.statements == 5)
            #expect(try connection.scalar("SELECT count(*)::int FROM item", as: Int.self) == 2, "committed")

            // What is still queued at the end goes out with COMMIT.
            connection.resetStatistics()
            try connection.transaction { connection in
                _ = try connection.scalar("SELECT 1", as: Int.self)
                try connection.sendWithNextRoundTrip(Statement("INSERT INTO item VALUES (3)"))
            }
            #expect(connection.statistics.roundTrips == 2)
            #expect(try connection.scalar("SELECT count(*)::int FROM item", as: Int.self) == 3)
        }
    }

    @Test func aTransactionThatSendsNothingCostsNothingAndARollbackDropsTheQueue() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE item (id int PRIMARY KEY)")
            connection.resetStatistics()
            try connection.transaction { _ in }
            #expect(connection.statistics.roundTrips == 0)

            struct Abandon: Error {}
            #expect(throws: Abandon.self) {
                try connection.transaction { connection in
                    try connection.sendWithNextRoundTrip(Statement("INSERT INTO item VALUES (1)"))
                    throw Abandon()
                }
            }
            // The server never saw the transaction: nothing to roll back, nothing sent.
            #expect(connection.statistics.roundTrips == 0)
            #expect(!connection.isInTransaction && !connection.hasQueuedStatements)
            #expect(try connection.scalar("SELECT count(*)::int FROM item", as: Int.self) == 0)

            // A savepoint rolled back drops what was queued inside it, and keeps what came before.
            try connection.transaction { connection in
                try connection.execute("INSERT INTO item VALUES (1)")
                #expect(throws: Abandon.self) {
                    try connection.savepoint { connection in
                        try connection.sendWithNextRoundTrip(Statement("INSERT INTO item VALUES (2)"))
                        throw Abandon()
                    }
                }
            }
            #expect(try connection.execute("SELECT id FROM item ORDER BY id").map { try $0.decode(Int.self, at: 0) } == [1])
        }
    }

    @Test func aFailingQueuedStatementFailsTheNextRoundTripAndRollsTheTransactionBack() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE item (id int PRIMARY KEY)")
            let error = try expectPostgresError {
                try connection.transaction { connection in
                    try connection.execute("INSERT INTO item VALUES (1)")
                    try connection.sendWithNextRoundTrip(Statement("INSERT INTO item VALUES (1) -- the duplicate"))
                    try connection.sendWithNextRoundTrip(Statement("INSERT INTO item VALUES (2)"))
                    _ = try connection.scalar("SELECT 1", as: Int.self)
                }
            }
            #expect(error.sqlState == .uniqueViolation)
            #expect(error.statement?.contains("the duplicate") == true, "the error names the queued statement: \(error.statement ?? "")")
            #expect(!connection.isInTransaction && !connection.hasQueuedStatements)
            #expect(try connection.scalar("SELECT count(*)::int FROM item", as: Int.self) == 0)

            // Failing at COMMIT, with nothing sent after it: rolled back as well.
            let atCommit = try expectPostgresError {
                try connection.transaction { connection in
                    try connection.execute("INSERT INTO item VALUES (5)")
                    try connection.sendWithNextRoundTrip(Statement("INSERT INTO item VALUES (5)"))
                }
            }
            #expect(atCommit.sqlState == .uniqueViolation)
            #expect(try connection.scalar("SELECT count(*)::int FROM item", as: Int.self) == 0)
            #expect(try connection.scalar("SELECT 1", as: Int.self) == 1, "the connection is usable")
        }
    }

    /// A queued statement's result handler reads its result when the round trip that sends it
    /// returns; one whose statement never ran (rolled back unsent, or skipped after a failure) is
    /// never called.
    @Test func aQueuedStatementsResultHandlerReadsItsResultOnlyWhenItRan() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE item (id int PRIMARY KEY)")
            var read: [[Int]] = []
            func handler(_ result: QueryResult) throws { read.append(try result.map { try $0.decode(Int.self, at: 0) }) }
            try connection.transaction { connection in
                try connection.sendWithNextRoundTrip(Statement("INSERT INTO item VALUES (1), (2) RETURNING id"), onResult: handler)
                try connection.sendWithNextRoundTrip(Statement("INSERT INTO item VALUES (3)"))
                try connection.sendWithNextRoundTrip(Statement("SELECT count(*)::int FROM item"), onResult: handler)
                #expect(read.isEmpty, "not sent yet")
                #expect(try connection.scalar("SELECT 7", as: Int.self) == 7)
                #expect(read == [[1, 2], [3]], "read before the round trip's own result came back")
            }
            // Rolled back before it was sent; and skipped behind a failing statement.
            _ = try? connection.transaction { connection in
                try connection.sendWithNextRoundTrip(Statement("SELECT 4"), onResult: handler)
                throw PQError(kind: .client, message: "stop")
            }
            #expect(throws: PQError.self) {
                try connection.transaction { connection in
                    try connection.sendWithNextRoundTrip(Statement("INSERT INTO item VALUES (1)"))
                    try connection.sendWithNextRoundTrip(Statement("SELECT 5"), onResult: handler)
                }
            }
            #expect(read == [[1, 2], [3]])
            // Outside a transaction it runs at once, and so does its handler.
            try connection.sendWithNextRoundTrip(Statement("SELECT 6"), onResult: handler)
            #expect(read == [[1, 2], [3], [6]])
        }
    }

    @Test func outsideATransactionAQueuedStatementRunsAtOnce() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE item (id int PRIMARY KEY)")
            connection.resetStatistics()
            try connection.sendWithNextRoundTrip(Statement("INSERT INTO item VALUES (1)"))
            #expect(connection.statistics.roundTrips == 1 && !connection.hasQueuedStatements)
            #expect(try connection.scalar("SELECT count(*)::int FROM item", as: Int.self) == 1)
        }
    }

    @Test func aScriptAfterQueuedStatementsStillRefusesSeveralStatementsInStrictMode() async throws {
        try await TestPostgres.withDatabase { connection in
            #expect(connection.isStrictOneStatement, "the suite runs in strict one-statement mode")
            try connection.script("CREATE TABLE item (id int PRIMARY KEY)")
            let error = try expectPostgresError {
                try connection.transaction { connection in
                    try connection.sendWithNextRoundTrip(Statement("INSERT INTO item VALUES (1)"))
                    try connection.script("INSERT INTO item VALUES (2); INSERT INTO item VALUES (3)")
                }
            }
            #expect(error.kind == .client && error.sqlState == .syntaxError)
            #expect(error.message.contains("strict one-statement mode"))
            #expect(try connection.scalar("SELECT count(*)::int FROM item", as: Int.self) == 0)
        }
    }

    @Test func pipelineUntilFailureReturnsWhatRanBeforeTheFailure() async throws {
        try await TestPostgres.withDatabase { connection in
            let outcome = try connection.transaction { connection in
                try connection.pipelineUntilFailure([
                    Statement("SELECT 1"), Statement("SAVEPOINT s"), Statement("SELECT 1/0"), Statement("RELEASE SAVEPOINT s"), Statement("SELECT 2"),
                ]).also { _ in
                    // The failure left the transaction usable again once rolled back to the savepoint.
                    try connection.pipeline([Statement("ROLLBACK TO SAVEPOINT s"), Statement("RELEASE SAVEPOINT s")])
                }
            }
            #expect(outcome.results.count == 2)
            #expect(try outcome.results[0][0].decode(Int.self, at: 0) == 1)
            #expect(outcome.failure?.sqlState?.rawValue == "22012")
        }
    }
}

private extension Connection.PipelineOutcome {
    /// Runs `body` with the outcome, then returns it.
    func also(_ body: (Self) throws -> Void) rethrows -> Self {
        try body(self)
        return self
    }
}
