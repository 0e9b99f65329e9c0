import Foundation
import LibPQ
import PostgresTestSupport
import Testing

@Suite struct ConnectionTransactionTests {
    struct Boom: Error, Equatable {}

    private func labels(_ connection: Connection) throws -> [String] {
        try connection.execute("SELECT label FROM entry ORDER BY label").map { try $0.decode(String.self, at: 0) }
    }

    /// Runs `body` on a new test database with an empty table `entry (label text)`, its label
    /// UNIQUE if `unique` (for ``Failure/statementFails``).
    private func withEntryTable(unique: Bool = false, _ body: (Connection) throws -> Void) async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script(unique ? "CREATE TABLE entry (label text UNIQUE)" : "CREATE TABLE entry (label text)")
            try body(connection)
        }
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

    /// A way a transaction's or savepoint's body fails after inserting `'a'` into `entry`.
    enum Failure: Sendable, CaseIterable, CustomTestStringConvertible {
        /// The body throws an error of its own (``Boom``).
        case bodyThrows
        /// A statement fails: `'a'` again, in a column that is UNIQUE (23505).
        case statementFails
        /// A failed statement's error is swallowed: the commit or release then fails (25P02).
        case errorSwallowed

        var testDescription: String {
            switch self {
            case .bodyThrows: "the body throws"
            case .statementFails: "a statement fails"
            case .errorSwallowed: "an error is swallowed"
            }
        }

        /// The SQLSTATE the failure ends in, by name and by code; nil for ``Boom``.
        var sqlState: (named: SQLState, code: String)? {
            switch self {
            case .bodyThrows: nil
            case .statementFails: (.uniqueViolation, "23505")
            case .errorSwallowed: (.inFailedSQLTransaction, "25P02")
            }
        }

        /// Inserts `'a'`, then fails this way.
        func body(_ connection: Connection) throws {
            try connection.execute("INSERT INTO entry VALUES ('a')")
            switch self {
            case .bodyThrows: throw Boom()
            case .statementFails: try connection.execute("INSERT INTO entry VALUES ('a')")
            case .errorSwallowed: _ = try? connection.execute("SELECT 1/0")
            }
        }

        /// Expects `run` (the body in a transaction or savepoint) to end in this failure.
        func expectFailure(_ run: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) throws {
            guard let sqlState else {
                #expect(throws: Boom(), sourceLocation: sourceLocation) { try run() }
                return
            }
            let error = try expectPostgresError(sourceLocation: sourceLocation, run)
            #expect(error.sqlState == sqlState.named, sourceLocation: sourceLocation)
            #expect(error.sqlState?.rawValue == sqlState.code, sourceLocation: sourceLocation)
        }
    }

    /// A transaction whose body fails, whichever way, keeps none of its writes, and leaves the
    /// connection idle (not stuck in a transaction) and usable.
    @Test(arguments: Failure.allCases)
    func rollsBackWhenTheBodyFails(_ failure: Failure) async throws {
        try await withEntryTable(unique: true) { connection in
            try failure.expectFailure { try connection.transaction { try failure.body($0) } }
            #expect(!connection.isInTransaction)
            #expect(try labels(connection) == [])
            #expect(try connection.scalar("SELECT 1", as: Int.self) == 1)
            try connection.transaction { _ = try $0.execute("INSERT INTO entry VALUES ('b')") }
            #expect(try labels(connection) == ["b"])
        }
    }

    @Test func innerSavepointRollsBackWhileOuterCommits() async throws {
        try await withEntryTable { connection in
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
        try await withEntryTable { connection in
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

    /// A savepoint whose body fails by a statement (its own or a swallowed error) rolls back only
    /// what it wrote: the outer transaction goes on and commits.
    @Test(arguments: [Failure.statementFails, .errorSwallowed])
    func failingSavepointLeavesTheOuterTransactionUsable(_ failure: Failure) async throws {
        try await withEntryTable(unique: true) { connection in
            try connection.transaction { connection in
                try connection.execute("INSERT INTO entry VALUES ('kept')")
                try failure.expectFailure { try connection.savepoint { try failure.body($0) } }
                #expect(connection.isInTransaction)
                try connection.execute("INSERT INTO entry VALUES ('b')")
            }
            #expect(try labels(connection) == ["b", "kept"])
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
        try await withEntryTable { connection in
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
