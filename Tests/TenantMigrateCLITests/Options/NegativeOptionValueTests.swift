import Foundation
import LibPQ
import PostgresTestSupport
import Testing

/// A negative number given to a numeric option (`--jobs -1`) reaches the option's own check and its
/// message, not ArgumentParser's "Missing value for '--jobs <n>'" (which read `-1` as an option).
@Suite("Negative numbers reach the options' checks")
struct NegativeOptionValueTests {
    static let cases: [(arguments: [String], message: String)] = [
        (["migrate", "--all", "--jobs", "-1"], "--jobs must be at least 1"),
        (["migrate", "--all", "-j", "-1"], "--jobs must be at least 1"),
        (["migrate", "--limit", "-2"], "--limit must be at least 1"),
        (["migrate", "--all", "--lock-timeout", "-5"], "--lock-timeout must be 0 or more milliseconds"),
        (["rollback", "--all", "--to", "v1", "--max-attempts", "-1"], "--max-attempts must be at least 1"),
        (["migrate", "--all", "--reconnect-timeout", "-1"], "--reconnect-timeout must be 0 or more seconds"),
        (["migrate", "--all", "--online-above", "-1"], "--online-above must be 0 or more rows"),
        (["history", "--limit", "-1"], "--limit must be at least 1"),
        (["tenant", "create", "acme", "--jobs", "-1"], "--jobs must be at least 1"),
        (["check", "--round-trip", "--rows", "-1"], "--rows must be at least 1"),
    ]

    @Test func eachOptionSaysWhatItTakes() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            for (arguments, message) in Self.cases {
                let output = try await tracker(arguments, on: conninfo)
                #expect(output.status == 64 && output.stderr.hasPrefix("Error: \(message)\n"), "\(arguments): \(output.stderr)")
            }
            // Nothing ran: no catalog was made.
            #expect(try Connection(conninfo).execute("SELECT 1 FROM pg_namespace WHERE nspname = 'tenant_migrator'").rowCount == 0)
        }
    }
}
