import Foundation
import LibPQ
import PostgresTestSupport
import Testing

@Suite struct ConnectionTransactionTests {
    struct Boom: Error, Equatable {}

    private func labels(_ connection: Connection) throws -> [String] {
        try connection.execute("SELECT label FROM entry ORDER BY label").map { try $0.decode(String.self, at: 0) }
    }

    @Test func commitsWhenTheBodyReturns() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try Connection(conninfo)
            try connection.script("CREATE TABLE entry (label text)")
            let value = try connection.transaction { connection in
                #expect(connection.isInTransaction)
                try connection.execute("INSERT INTO entry VALUES ('a')")
                return 42
            }
            #expect(value == 42)
            #expect(!connection.isInTransaction)
            // Visible to another session, so really committed.
            let other = try Connection(conninfo)
            #expect(try labels(other) == ["a"])
        }
    }

    @Test func rollsBackWhenTheBodyThrows() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE entry (label text)")
            #expect(throws: Boom()) {
                try connection.transaction { connection in
                    try connection.execute("INSERT INTO entry VALUES ('a')")
                    throw Boom()
                }
            }
            #expect(!connection.isInTransaction)
            #expect(try labels(connection) == [])
            // The connection is idle again, not stuck in a transaction.
            try connection.transaction { _ = try $0.execute("INSERT INTO entry VALUES ('b')") }
            #expect(try labels(connection) == ["b"])
        }
    }

    @Test func rollsBackWhenAStatementFails() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE entry (label text UNIQUE)")
            let error = try expectPostgresError {
                try connection.transaction { connection in
                    try connection.execute("INSERT INTO entry VALUES ('a')")
                    try connection.execute("INSERT INTO entry VALUES ('a')")
                }
            }
            #expect(error.sqlState == .uniqueViolation)
            #expect(try labels(connection) == [])
        }
    }

    @Test func innerSavepointRollsBackWhileOuterCommits() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE entry (label text)")
            try connection.transaction { connection in
                try connection.execute("INSERT INTO entry VALUES ('level 1')")
                try connection.savepoint { connection in
                    try connection.execute("INSERT INTO entry VALUES ('level 2')")
                    #expect(throws: Boom()) {
                        try connection.savepoint { connection in
                            try connection.execute("INSERT INTO entry VALUES ('level 3')")
                            throw Boom()
                        }
                    }
                    #expect(connection.isInTransaction)
                    try connection.execute("INSERT INTO entry VALUES ('level 2 again')")
                }
            }
            #expect(try labels(connection) == ["level 1", "level 2", "level 2 again"])
        }
    }

    @Test func failingMiddleLevelDiscardsItsCommittedInnerLevel() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE entry (label text)")
            try connection.transaction { connection in
                try connection.execute("INSERT INTO entry VALUES ('level 1')")
                #expect(throws: Boom()) {
                    // transaction() inside a transaction is a savepoint too.
                    try connection.transaction { connection in
                        try connection.execute("INSERT INTO entry VALUES ('level 2')")
                        try connection.savepoint { _ = try $0.execute("INSERT INTO entry VALUES ('level 3')") }
                        throw Boom()
                    }
                }
                try connection.savepoint { _ = try $0.execute("INSERT INTO entry VALUES ('level 2 sibling')") }
            }
            #expect(try labels(connection) == ["level 1", "level 2 sibling"])
        }
    }

    @Test func failingStatementInASavepointLeavesTheOuterTransactionUsable() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE entry (label text UNIQUE)")
            try connection.transaction { connection in
                try connection.execute("INSERT INTO entry VALUES ('a')")
                let error = try expectPostgresError {
                    try connection.savepoint { _ = try $0.execute("INSERT INTO entry VALUES ('a')") }
                }
                #expect(error.sqlState == .uniqueViolation)
                try connection.execute("INSERT INTO entry VALUES ('b')")
            }
            #expect(try labels(connection) == ["a", "b"])
        }
    }

    @Test func swallowedErrorMakesTheCommitFail() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE entry (label text)")
            let error = try expectPostgresError {
                try connection.transaction { connection in
                    try connection.execute("INSERT INTO entry VALUES ('a')")
                    _ = try? connection.execute("SELECT 1/0")
                }
            }
            #expect(error.sqlState == .inFailedSQLTransaction)
            #expect(error.sqlState?.rawValue == "25P02")
            #expect(!connection.isInTransaction)
            #expect(try labels(connection) == [])
            #expect(try connection.scalar("SELECT 1", as: Int.self) == 1)
        }
    }

    @Test func swallowedErrorInASavepointFailsOnlyThatSavepoint() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE entry (label text)")
            try connection.transaction { connection in
                try connection.execute("INSERT INTO entry VALUES ('kept')")
                let error = try expectPostgresError {
                    try connection.savepoint { connection in
                        try connection.execute("INSERT INTO entry VALUES ('lost')")
                        _ = try? connection.execute("SELECT 1/0")
                    }
                }
                #expect(error.sqlState == .inFailedSQLTransaction)
            }
            #expect(try labels(connection) == ["kept"])
        }
    }

    @Test func beginStatementSetsTheIsolationLevel() async throws {
        try await TestPostgres.withDatabase { connection in
            let level = try connection.transaction(beginStatement: "BEGIN ISOLATION LEVEL SERIALIZABLE") { connection in
                try connection.scalar("SHOW transaction_isolation", as: String.self)
            }
            #expect(level == "serializable")
            #expect(try connection.scalar("SHOW transaction_isolation", as: String.self) == "read committed")
        }
    }

    @Test func savepointOutsideATransactionIsATransaction() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE entry (label text)")
            #expect(throws: Boom()) {
                try connection.savepoint { connection in
                    try connection.execute("INSERT INTO entry VALUES ('a')")
                    throw Boom()
                }
            }
            try connection.savepoint { _ = try $0.execute("INSERT INTO entry VALUES ('b')") }
            #expect(try labels(connection) == ["b"])
            #expect(!connection.isInTransaction)
        }
    }
}
