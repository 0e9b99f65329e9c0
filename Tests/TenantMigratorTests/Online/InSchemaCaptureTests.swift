import Foundation
import LibPQ
import PostgresTestSupport
@testable import TenantMigrator
import TenantMigratorTestSupport
import Testing
import TypedSQL

/// The change capture inside the tenant's schema with its lease row (the layout Citus needs,
/// docs/Citus.md) on plain PostgreSQL, where every CI run has it; the Citus suite runs it on a
/// cluster (`onlineOnCitusTheInSchemaCaptureLogsWhileItsLeaseIsRenewedAndNothingOnceItLapsed`).
@Suite("Online: the change capture inside the tenant's schema")
struct InSchemaCaptureTests {
    /// Default privileges of the schema give the app role every right on new tables and
    /// functions: the capture's log, functions and lease are revoked from it at once, and its
    /// rights on the live tables stay. The app's writes are logged while the lease is fresh; once
    /// it expired nothing is, a renewal says so, and the triggers go.
    @Test func itsObjectsAreTheMigratorsAloneAndItLogsOnlyWhileTheLeaseIsFresh() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try makeRecipesMigrator(conninfo)
            _ = try await migrator.createTenant("capture", version: "v2")
            let connection = try Connection(conninfo)
            try connection.loadRecipes(tenants: ["capture"], version: "v2", recipes: 5)
            // Roles are the server's, shared by every test database: one of this database's own, dropped at the end.
            let schema = "tenant_capture", role = "tm_capture_" + (try connection.scalar("SELECT substr(current_database(), 9)", as: String.self))
            try connection.execute("CREATE ROLE \(id: role)")
            defer {
                _ = try? connection.execute("RESET ROLE")
                _ = try? connection.execute("DROP OWNED BY \(id: role)")
                _ = try? connection.execute("DROP ROLE \(id: role)")
            }
            try connection.execute("GRANT USAGE ON SCHEMA \(SQL.schema) TO \(id: role)", schema: schema)
            try connection.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON \(table: "recipe") TO \(id: role)", schema: schema)
            try connection.execute("ALTER DEFAULT PRIVILEGES IN SCHEMA \(SQL.schema) GRANT ALL ON TABLES TO \(id: role)", schema: schema)
            try connection.execute("ALTER DEFAULT PRIVILEGES IN SCHEMA \(SQL.schema) GRANT ALL ON FUNCTIONS TO \(id: role)", schema: schema)

            let lease = InSchemaLease(schema: schema, naming: .citusShadow, holder: "run 1", duration: .seconds(600))
            let capture = ChangeCapture(schemas: try OnlineSchemas.of(schema, on: connection), inSchemaLease: lease)
            try connection.transaction { connection in
                try lease.create(on: connection)
                try capture.createLog(on: connection)
                try capture.install(on: [("recipe", ["id"], [])], connection: connection)
            }
            let granted = try connection.execute("""
                SELECT c.relname::text FROM pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a
                WHERE c.relnamespace = \(bind: schema)::regnamespace AND a.grantee = \(bind: role)::regrole ORDER BY 1
                """).map { try $0.decode(String.self, at: 0) }
            #expect(Set(granted) == ["recipe"], "\(granted)")
            let callable = try connection.scalar("""
                SELECT count(*)::int FROM pg_catalog.pg_proc p WHERE p.pronamespace = '\(schema)'::regnamespace
                AND pg_catalog.has_function_privilege('\(role)', p.oid, 'EXECUTE')
                """, as: Int.self)
            #expect(callable == 0)

            try connection.execute("SET ROLE \(id: role)")
            try connection.execute("UPDATE \(table: "recipe") SET \(id: "name") = \(id: "name") || '!' WHERE \(id: "id") <= 2", schema: schema)
            let refused = #expect(throws: PQError.self) {
                try connection.execute("UPDATE \(table: TableNaming.citusShadow.name(InSchemaLease.table)) SET expires_at = now() + interval '1 day'", schema: schema)
            }
            #expect(refused?.sqlState?.rawValue == "42501")
            try connection.execute("RESET ROLE")
            #expect(try connection.transaction { try capture.pending(on: $0) } == 2)

            try connection.execute("UPDATE \(table: TableNaming.citusShadow.name(InSchemaLease.table)) SET expires_at = now() - interval '1 second'", schema: schema)
            try connection.execute("UPDATE \(table: "recipe") SET \(id: "name") = \(id: "name") || '?' WHERE \(id: "id") <= 4", schema: schema)
            #expect(try connection.transaction { try capture.pending(on: $0) } == 2, "an expired lease logs nothing")
            #expect(try !lease.renew(on: connection))

            try connection.transaction { connection in
                try ChangeCapture.removeTriggers(from: ["\(schema: schema, table: "recipe")"], on: connection)
            }
            #expect(try ChangeCapture.capturedTables(inSchema: schema, on: connection).isEmpty)
        }
    }
}
