import Foundation
import LibPQ
import PostgresTestSupport
import Testing

@Suite struct ConnectionPipelineTests {
    private static func inserts(_ count: Int) -> [Statement] {
        // Distinct SQL text per statement, so an error can be traced to its statement.
        (0..<count).map { Statement("INSERT INTO item (id, label) VALUES ($1, $2) -- statement \(int: $0)", [$0, "item \($0)"]) }
    }

    @Test func runsAThousandStatements() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE item (id int PRIMARY KEY, label text)")
            let results = try connection.pipeline(Self.inserts(1000))
            #expect(results.count == 1000)
            #expect(results.allSatisfy { $0.commandTag == "INSERT 0 1" })
            #expect(try connection.scalar("SELECT count(*) FROM item", as: Int.self) == 1000)
            #expect(try connection.scalar("SELECT sum(id) FROM item", as: Int.self) == 999 * 1000 / 2)
            #expect(try connection.scalar("SELECT label FROM item WHERE id = 777", as: String.self) == "item 777")
        }
    }

    @Test func returnsResultsInOrder() async throws {
        try await TestPostgres.withDatabase { connection in
            let statements = (0..<300).map { Statement("SELECT $1::int4 * 2 AS doubled, $2::text AS label", [Int32($0), "#\($0)"]) }
            let results = try connection.pipeline(statements)
            #expect(results.count == 300)
            for (index, result) in results.enumerated() {
                #expect(try result[0].decode(Int32.self, column: "doubled") == Int32(index * 2))
                #expect(try result[0].decode(String.self, column: "label") == "#\(index)")
            }
            #expect(try connection.pipeline([]).isEmpty)
        }
    }

    @Test func oneFailingStatementAbortsTheWholeBatch() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE item (id int PRIMARY KEY, label text)")
            var statements = Self.inserts(1000)
            // Statement 500 repeats the id of statement 499.
            statements[500] = Statement("INSERT INTO item (id, label) VALUES ($1, $2) -- the duplicate", [499, "dup"])
            let error = try expectPostgresError { _ = try connection.pipeline(statements) }
            #expect(error.kind == .server)
            #expect(error.sqlState == .uniqueViolation)
            #expect(error.constraint == "item_pkey")
            #expect(error.statement == "INSERT INTO item (id, label) VALUES ($1, $2) -- the duplicate")
            #expect(try connection.scalar("SELECT count(*) FROM item", as: Int.self) == 0)

            // The connection is usable afterwards, in pipeline mode and out of it.
            #expect(connection.isHealthy)
            #expect(!connection.isInTransaction)
            #expect(try connection.scalar("SELECT 41 + 1", as: Int.self) == 42)
            #expect(try connection.pipeline(Self.inserts(10)).count == 10)
            #expect(try connection.scalar("SELECT count(*) FROM item", as: Int.self) == 10)
        }
    }

    @Test func errorNamesTheFailingStatementWhereverItIs() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE item (id int PRIMARY KEY, label text)")
            for failing in [0, 1, 63, 64, 998, 999] {
                var statements = Self.inserts(1000)
                statements[failing] = Statement("SELECT 1 / $1::int4 -- fails at \(int: failing)", [Int32(0)])
                let error = try expectPostgresError { _ = try connection.pipeline(statements) }
                #expect(error.sqlState == "22012")
                #expect(error.statement == "SELECT 1 / $1::int4 -- fails at \(failing)")
                #expect(try connection.scalar("SELECT count(*) FROM item", as: Int.self) == 0)
            }
        }
    }

    @Test func largeBatchesDoNotDeadlock() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE blob (id int, body text)")
            let body = String(repeating: "0123456789", count: 2_000)
            let statements = (0..<1000).map { Statement("INSERT INTO blob VALUES ($1, $2) RETURNING id, body", [$0, body]) }
            let results = try connection.pipeline(statements)
            #expect(results.count == 1000)
            #expect(try results[999][0].decode(String.self, column: "body") == body)
            #expect(try connection.scalar("SELECT sum(length(body)) FROM blob", as: Int.self) == 20_000 * 1000)
        }
    }

    @Test func failureInsideATransactionAbortsThatTransaction() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE item (id int PRIMARY KEY, label text)")
            var statements = Self.inserts(20)
            statements[10] = Statement("INSERT INTO item (id) VALUES (0)")
            let error = try expectPostgresError {
                try connection.transaction { connection in
                    try connection.execute("INSERT INTO item VALUES (-1, 'before')")
                    _ = try connection.pipeline(statements)
                }
            }
            #expect(error.sqlState == .uniqueViolation)
            #expect(try connection.scalar("SELECT count(*) FROM item", as: Int.self) == 0)
        }
    }

    // MARK: Statements prepared per connection

    /// The statements this session has prepared, by text.
    private static func prepared(on connection: Connection) throws -> [String] {
        try connection.execute("SELECT statement FROM pg_catalog.pg_prepared_statements WHERE from_sql = false ORDER BY name")
            .map { try $0.decode(String.self, at: 0) }
    }

    private static let doubling = Statement("SELECT $1::int4 * 2 AS doubled", [Int32(0)])

    private static func doubling(_ value: Int32) -> Statement {
        Statement(unsafeSQL: doubling.sql, [value]).preparedPerConnection()
    }

    @Test func aPreparedStatementIsPreparedOncePerSessionAndRunsWithEachValue() async throws {
        try await TestPostgres.withDatabase { connection in
            // Twice in its first pipeline (prepared once, before the first), then alone, then again.
            let first = try connection.pipeline([Self.doubling(1), Statement("SELECT 'plain'"), Self.doubling(2)])
            #expect(first.count == 3)
            #expect(try first[0][0].decode(Int32.self, at: 0) == 2)
            #expect(try first[1][0].decode(String.self, at: 0) == "plain")
            #expect(try first[2][0].decode(Int32.self, at: 0) == 4)
            #expect(try connection.execute(Self.doubling(21))[0].decode(Int32.self, at: 0) == 42)
            for value in Int32(3)...Int32(12) {
                #expect(try connection.pipeline([Self.doubling(value)])[0][0].decode(Int32.self, at: 0) == value * 2)
            }
            // Prepared once; the unprepared statements are not.
            #expect(try Self.prepared(on: connection) == [Self.doubling.sql])
        }
    }

    @Test func aPreparationThatFailsOrIsSkippedIsTriedAgain() async throws {
        try await TestPostgres.withDatabase { connection in
            let select = Statement("SELECT count(*)::int4 FROM item WHERE id > $1", [Int32(0)]).preparedPerConnection()
            // The table is not there: the preparation itself fails.
            #expect(try expectPostgresError { _ = try connection.execute(select) }.sqlState == .undefinedTable)
            try connection.script("CREATE TABLE item (id int PRIMARY KEY)")
            // Skipped: a statement before it in the pipeline fails.
            let failing = Statement("INSERT INTO missing VALUES (1)")
            #expect(try expectPostgresError { _ = try connection.pipeline([failing, select]) }.sqlState == .undefinedTable)
            #expect(try Self.prepared(on: connection).isEmpty)
            #expect(try connection.execute(select)[0].decode(Int32.self, at: 0) == 0)
            #expect(try Self.prepared(on: connection) == [select.sql])
        }
    }

    @Test func aPreparationOutlivesTheTransactionItWasMadeIn() async throws {
        try await TestPostgres.withDatabase { connection throws in
            struct RolledBack: Error {}
            #expect(throws: RolledBack.self) {
                try connection.transaction { connection in
                    _ = try connection.execute(Self.doubling(1))
                    throw RolledBack()
                }
            }
            // Prepared statements are not transactional: the session still has it, and it is reused.
            #expect(try Self.prepared(on: connection) == [Self.doubling.sql])
            #expect(try connection.execute(Self.doubling(5))[0].decode(Int32.self, at: 0) == 10)
            #expect(try Self.prepared(on: connection).count == 1)
        }
    }

    @Test func aConnectionThatDoesNotPrepareSendsTheTextEachTime() async throws {
        try await TestPostgres.withDatabase { connection throws in
            connection.preparesStatements = false
            #expect(try connection.pipeline([Self.doubling(1), Self.doubling(2)]).map { try $0[0].decode(Int32.self, at: 0) } == [2, 4])
            #expect(try connection.execute(Self.doubling(3))[0].decode(Int32.self, at: 0) == 6)
            #expect(try Self.prepared(on: connection).isEmpty)
        }
    }
}
