import Foundation
import PostgresTestSupport
import Testing

/// Runs `check` with a new database's connection string on a thread of its own (blocking a thread
/// of the concurrency pool, two on this machine, for the whole run would stall every other test
/// meanwhile), records each error it returns as an issue, and returns its result with the seconds
/// the whole took.
func runPropertyCheck<T: Sendable>(_ check: @escaping @Sendable (String) -> (T, [String])) async throws -> (result: T, seconds: Double) {
    let started = ContinuousClock.now
    let result = try await TestPostgres.withDatabaseURL { conninfo in
        let (result, errors) = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: check(conninfo)) }.start()
        }
        for error in errors { Issue.record(Comment(rawValue: error)) }
        return result
    }
    return (result, Double((ContinuousClock.now - started).components.seconds))
}

/// Records the first 20 of a property run's `failures`, writes them all to the file
/// `ROUND_TRIP_PROPERTY_FAILURES` names (with `fileSuffix`) when it is set, and expects none.
func reportPropertyFailures(_ failures: [String], fileSuffix: String = "", sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    for failure in failures.prefix(20) { Issue.record(Comment(rawValue: failure), sourceLocation: sourceLocation) }
    if let file = ProcessInfo.processInfo.environment["ROUND_TRIP_PROPERTY_FAILURES"] {
        try? failures.joined(separator: "\n\n").write(toFile: file + fileSuffix, atomically: true, encoding: .utf8)
    }
    #expect(failures.isEmpty, "\(failures.count) failures", sourceLocation: sourceLocation)
}
