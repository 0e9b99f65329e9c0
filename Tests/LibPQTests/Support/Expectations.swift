import LibPQ
import PostgresTestSupport
import Testing

/// Expects `body` to throw a ``PQError`` and returns it.
func expectPostgresError(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) throws -> PQError {
    do {
        try body()
    } catch let error as PQError {
        return error
    }
    Issue.record("expected a PQError, but nothing was thrown", sourceLocation: sourceLocation)
    throw TestFailure("no error")
}
