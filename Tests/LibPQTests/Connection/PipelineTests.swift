import LibPQ
import PostgresTestSupport
import Testing

/// A pipeline's results are read through the handles its statements were added with.
@Suite("Pipeline handles")
struct PipelineTests {
    @Test func handlesReadTheirStatementsResults() async throws {
        try await TestPostgres.withDatabase { connection in
            var pipeline = Pipeline()
            pipeline.add([Statement("SELECT 0"), Statement("SELECT 0")])
            let one = pipeline.add(Statement("SELECT 1"))
            let two = pipeline.add(Statement("SELECT $1::int", [2]))
            let outcome = try connection.pipeline(pipeline)
            #expect(try outcome[one]?[0].decode(Int.self, at: 0) == 1)
            #expect(try outcome[two]?[0].decode(Int.self, at: 0) == 2)
            #expect(!outcome.failed(at: one))
        }
    }

    @Test func theFailedStatementIsKnownByItsHandleAndLaterOnesHaveNoResult() async throws {
        try await TestPostgres.withDatabase { connection in
            var pipeline = Pipeline()
            let before = pipeline.add(Statement("SELECT 1"))
            pipeline.add(Statement("SAVEPOINT s"))
            let division = pipeline.add(Statement("SELECT 1/0"))
            let after = pipeline.add(Statement("SELECT 2"))
            let outcome = try connection.transaction { connection in
                let outcome = try connection.pipelineUntilFailure(pipeline)
                try connection.pipeline([Statement("ROLLBACK TO SAVEPOINT s"), Statement("RELEASE SAVEPOINT s")])
                return outcome
            }
            #expect(try outcome[before]?[0].decode(Int.self, at: 0) == 1)
            #expect(outcome.failed(at: division))
            #expect(!outcome.failed(at: before) && !outcome.failed(at: after))
            #expect(outcome[division] == nil && outcome[after] == nil)
            #expect(outcome.failure?.sqlState?.rawValue == "22012")
            #expect(throws: PQError.self) { try connection.pipeline(pipeline) }
        }
    }
}
