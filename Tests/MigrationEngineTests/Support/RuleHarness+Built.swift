import LibPQ
import PostgresTestSupport

extension RuleHarness {
    /// Runs `body` with the harness of the fixture family `name` and a new database whose schema
    /// `t` is at `version` with `seed`'s rows (``build(_:schema:seed:on:)``): the opening of a
    /// rule test.
    static func withBuilt<T>(_ name: String, at version: String = "v1", seed: String = "", _ body: (RuleHarness, Connection) async throws -> T) async throws -> T {
        let harness = try RuleHarness(name)
        return try await TestPostgres.withDatabase { connection in
            try harness.build(version, seed: seed, on: connection)
            return try await body(harness, connection)
        }
    }
}
