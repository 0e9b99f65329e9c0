import Foundation
import LibPQ
import PostgresTestSupport
import Testing

@Suite struct ConnectionPipelineTests {
    private static func inserts(_ count: Int) -> [Statement] {
        // Distinct SQL text per statement, so an error can be traced to its statement.
        (0..<count).map { Statement("INSERT INTO item (id, label) VALUES ($1, $2) -- statement \($0)", [$0, "item \($0)"]) }
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
                statements[failing] = Statement("SELECT 1 / $1::int4 -- fails at \(failing)", [Int32(0)])
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
}
