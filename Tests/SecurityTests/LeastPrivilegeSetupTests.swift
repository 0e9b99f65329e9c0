import LibPQ
import PostgresTestSupport
import Testing

/// The test support's least-privilege database is what docs/Security.md describes.
@Suite("Least-privilege setup")
struct LeastPrivilegeSetupTests {
    @Test func theMigratorIsAnOrdinaryRoleThatMayCreateSchemas() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let migrator = try Connection(setup.migratorURL, logger: quietLogger)
            #expect(try migrator.scalar("SELECT current_user::text", as: String.self) == setup.migratorRole)
            #expect(try migrator.scalar("SELECT rolsuper FROM pg_roles WHERE rolname = current_user", as: Bool.self) == false)
            #expect(try migrator.scalar("SELECT has_database_privilege(current_database(), 'CREATE')", as: Bool.self))
            let app = try Connection(setup.appURL, logger: quietLogger)
            #expect(try app.scalar("SELECT has_database_privilege(current_database(), 'CREATE')", as: Bool.self) == false)
        }
    }
}
