import Foundation
import LibPQ
import PostgresTestSupport
import Testing

/// Strict one-statement mode: a script of several statements is refused before any of it runs;
/// one statement passes whatever semicolons it quotes; transactions, savepoints and transaction
/// pipelines send one statement per message.
@Suite struct ConnectionStrictModeTests {
    @Test func theSuiteRunsInStrictMode() async throws {
        try await TestPostgres.withDatabase { connection in
            #expect(Connection.strictOneStatementByDefault)
            #expect(connection.isStrictOneStatement)
        }
    }

    @Test func aSecondStatementIsRefusedBeforeAnythingRuns() async throws {
        try await TestPostgres.withDatabase { connection in
            let error = try expectPostgresError {
                try connection.script("CREATE TABLE first_one (id int);\nINSERT INTO first_one VALUES (1)")
            }
            #expect(error.kind == .client)
            #expect(error.sqlState == .syntaxError)
            #expect(error.message.contains("strict one-statement mode refused a query of several statements"))
            #expect(error.message.contains("starting \"CREATE TABLE first_one (id int); INSERT …\""), "\(error.message)")
            #expect(try connection.execute("SELECT to_regclass('first_one') IS NULL").first?.decode(Bool.self, at: 0) == true)
        }
    }

    @Test func semicolonsInsideOneStatementAreFine() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("SELECT 1;")
            try connection.script("SELECT 'a;b', \"?column?\" FROM (SELECT 1) AS \"x;y\"(\"?column?\") -- c; d")
            try connection.script("/* x; y */ SELECT E'it''s; \\' ok'")
            try connection.script("DO $body$ BEGIN PERFORM 1; PERFORM 2; END $body$")
            try connection.script("CREATE FUNCTION two() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; SELECT 2; END")
            #expect(try connection.execute("SELECT two()").first?.decode(Int.self, at: 0) == 2)
        }
    }

    @Test func eachConnectionCanLeaveStrictMode() async throws {
        try await TestPostgres.withDatabase { connection in
            connection.isStrictOneStatement = false
            try connection.script("CREATE TABLE a (id int); CREATE TABLE b (id int)")
            #expect(try connection.execute("SELECT count(*)::int FROM pg_class WHERE relname IN ('a', 'b')").first?.decode(Int.self, at: 0) == 2)
        }
    }

    @Test func savepointRollbackSendsOneStatementPerMessage() async throws {
        try await TestPostgres.withDatabase { connection in
            try connection.script("CREATE TABLE entry (label text)")
            try connection.transaction { connection in
                try connection.execute("INSERT INTO entry VALUES ('kept')")
                #expect(throws: PQError.self) {
                    try connection.savepoint { try $0.execute("INSERT INTO entry VALUES (1 / 0)") }
                }
                try connection.execute("INSERT INTO entry VALUES ('after')")
            }
            #expect(try connection.execute("SELECT count(*)::int FROM entry").first?.decode(Int.self, at: 0) == 2)
        }
    }

    @Test func aTransactionPipelineCommitsOrRollsBackAsOne() async throws {
        try await TestPostgres.withDatabase { connection in
            let results = try connection.transactionPipeline([
                Statement("CREATE TABLE entry (label text UNIQUE)"),
                Statement("SET LOCAL lock_timeout = '1234ms'"),
                Statement("SELECT current_setting('lock_timeout')"),
            ])
            #expect(results.count == 3)
            #expect(try results[2].first?.decode(String.self, at: 0) == "1234ms")
            #expect(try connection.execute("SELECT current_setting('lock_timeout')").first?.decode(String.self, at: 0) == "0")

            let error = try expectPostgresError {
                try connection.transactionPipeline([
                    Statement("INSERT INTO entry VALUES ('one')"),
                    Statement("INSERT INTO entry VALUES ('one')"),
                    Statement("INSERT INTO entry VALUES ('two')"),
                ])
            }
            #expect(error.sqlState == .uniqueViolation)
            #expect(try connection.execute("SELECT count(*)::int FROM entry").first?.decode(Int.self, at: 0) == 0)

            // Inside a transaction it is a savepoint: the failure leaves the outer work usable.
            try connection.transaction { connection in
                try connection.execute("INSERT INTO entry VALUES ('outer')")
                #expect(throws: PQError.self) {
                    try connection.transactionPipeline([Statement("INSERT INTO entry VALUES ('outer')")])
                }
                try connection.transactionPipeline([Statement("INSERT INTO entry VALUES ('inner')")])
            }
            #expect(try connection.execute("SELECT label FROM entry ORDER BY label").map { try $0.decode(String.self, at: 0) } == ["inner", "outer"])
        }
    }
}
