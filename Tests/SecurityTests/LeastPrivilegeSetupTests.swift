import LibPQ
import PostgresTestSupport
import Testing

/// The test support's least-privilege database is what docs/Security.md describes.
@Suite("Least-privilege setup")
struct LeastPrivilegeSetupTests {
    @Test func theMigratorIsAnOrdinaryRoleThatMayCreateSchemas() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let migrator = try setup.migrator.connect()
            #expect(try migrator.scalar("SELECT current_user::text", as: String.self) == setup.migrator.role)
            #expect(try migrator.scalar("SELECT rolsuper FROM pg_roles WHERE rolname = current_user", as: Bool.self) == false)
            #expect(try migrator.scalar("SELECT has_database_privilege(current_database(), 'CREATE')", as: Bool.self))
            let app = try setup.app.connect()
            #expect(try app.scalar("SELECT has_database_privilege(current_database(), 'CREATE')", as: Bool.self) == false)
        }
    }
}
