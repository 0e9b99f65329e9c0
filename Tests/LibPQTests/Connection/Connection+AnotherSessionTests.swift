import LibPQ
import PostgresTestSupport
import Testing

@Suite struct ConnectionAnotherSessionTests {
    /// The second session reaches the same database as the same role, with the first one's startup
    /// settings (search path, time zone), under its own application name and server process.
    @Test func anotherSessionHasTheSameDatabaseRoleAndSettings() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let first = try Connection(conninfo, searchPath: ["pg_catalog", "pg_temp"], settings: ["TimeZone": "Pacific/Chatham"])
            let second = try first.anotherSession(applicationName: "second session")
            let facts = "SELECT current_database()::text, current_user::text, current_setting('search_path'), current_setting('TimeZone')"
            let firstFacts = try first.execute(unsafeSQL: facts).map { row in try (0..<4).map { try row.decode(String.self, at: $0) } }
            let secondFacts = try second.execute(unsafeSQL: facts).map { row in try (0..<4).map { try row.decode(String.self, at: $0) } }
            #expect(firstFacts == secondFacts)
            #expect(secondFacts.first?[3] == "Pacific/Chatham")
            #expect(try second.scalar("SELECT current_setting('application_name')", as: String.self) == "second session")
            #expect(try first.scalar("SELECT pg_backend_pid()", as: Int32.self) != second.scalar("SELECT pg_backend_pid()", as: Int32.self))
        }
    }
}
