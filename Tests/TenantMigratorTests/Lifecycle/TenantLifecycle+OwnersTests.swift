import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 34: a sequence or enum type the model lists is found by name; an app role that owns it
/// could change it under the migrator (a sequence's increment or position, a type's values). Its
/// owner must be a superuser or the migrator: `adopt` refuses another, `verify` reports it.
@Suite("Owners of the model's sequences and enum types")
struct TenantLifecycleOwnersTests {
    /// A test database with an app role of its own (dropped afterwards, with what it owns).
    static func withAppRole(_ body: (Connection, String) throws -> Void) async throws {
        try await TestPostgres.withDatabase { connection in
            let role = "tm_app_\(UInt32.random(in: 0 ... .max))"
            try connection.fixtureScript("CREATE ROLE \(role) NOLOGIN")
            defer { _ = try? connection.fixtureScript("REASSIGN OWNED BY \(role) TO CURRENT_USER; DROP OWNED BY \(role); DROP ROLE \(role)") }
            try body(connection, role)
        }
    }

    @Test func aSequenceOrEnumTypeAnAppRoleOwnsIsRefusedByAdoptAndReportedByVerify() async throws {
        try await Self.withAppRole { connection, role in
            try connection.fixtureScript("""
                CREATE SCHEMA shop;
                CREATE SEQUENCE shop.part_seq INCREMENT 50;
                CREATE TYPE shop.mood AS ENUM ('calm', 'busy');
                CREATE TABLE shop.part (id bigint PRIMARY KEY DEFAULT nextval('shop.part_seq'::regclass), name text);
                """)
            let v1 = try SchemaImport.read(schema: "shop", versionName: "v1", on: connection).version
            #expect(v1.sequences.map(\.name) == ["part_seq"] && v1.enums.map(\.name) == ["mood"], "\(v1.yamlText())")
            let catalog = TenantCatalog()
            try catalog.install(on: connection)
            let lifecycle = TenantLifecycle(catalog: catalog, family: try ModelFamily(name: "Shop", versions: [v1]))
            let giveAway = "ALTER SEQUENCE shop.part_seq OWNER TO \(role); ALTER TYPE shop.mood OWNER TO \(role)"
            try connection.fixtureScript(giveAway)
            do {
                _ = try lifecycle.adopt(try TenantName("shop"), schema: "shop", on: connection)
                Issue.record("adopted a schema whose part_seq and mood \(role) owns")
            } catch {
                for part in ["sequence shop.part_seq", "type shop.mood", "owned by \(role)", "neither a superuser nor the migrator"] {
                    #expect("\(error)".contains(part), "\(part) not in \(error)")
                }
            }
            try connection.fixtureScript("ALTER SEQUENCE shop.part_seq OWNER TO CURRENT_USER; ALTER TYPE shop.mood OWNER TO CURRENT_USER")
            _ = try lifecycle.adopt(try TenantName("shop"), schema: "shop", on: connection)
            #expect(try lifecycle.verify(try TenantName("shop"), on: connection).isClean)
            try connection.fixtureScript(giveAway)
            let report = try lifecycle.verify(try TenantName("shop"), on: connection)
            let found = report.foreignObjects.filter { $0.owner == role }.map(\.name)
            #expect(found.count == 2 && found.contains { $0.contains("sequence shop.part_seq") } && found.contains { $0.contains("type shop.mood") },
                    "\(report.foreignObjects)")
        }
    }

    /// `migrate` checks again, once per tenant, what the tenant's tables use and who owns the
    /// model's sequences and enum types: an owner changed after adopt (here the sequence the keys
    /// draw from, given to an app role, which could move it back under them) stops the migration
    /// before anything is touched.
    @Test func migrateRefusesATenantWhoseSequenceAnAppRoleOwnsSinceItWasAdopted() async throws {
        try await Self.withAppRole { connection, role in
            try connection.fixtureScript("""
                CREATE SCHEMA shop;
                CREATE SEQUENCE shop.part_seq INCREMENT 50;
                CREATE TABLE shop.part (id bigint PRIMARY KEY DEFAULT nextval('shop.part_seq'::regclass), name text);
                """)
            let v1 = try SchemaImport.read(schema: "shop", versionName: "v1", on: connection).version
            let v2 = try ModelVersion(name: "v2", yaml: v1.yamlText().replacingOccurrences(of: "name: { type: string, optional: true }",
                                                                                       with: "name: { type: string, optional: true }\n      note: { type: string, optional: true }"), file: "v2")
            #expect(v2.versionHash != v1.versionHash)
            let family = try ModelFamily(name: "Shop", versions: [v1, v2])
            let catalog = TenantCatalog()
            try catalog.install(on: connection)
            _ = try TenantLifecycle(catalog: catalog, family: family).adopt(try TenantName("shop"), schema: "shop", on: connection)
            try connection.fixtureScript("ALTER SEQUENCE shop.part_seq OWNER TO \(role)")
            let runner = TenantExecutor(catalog: catalog, planner: MigrationPlanner(family: family))
            do {
                let outcome = try runner.migrate(try TenantName("shop"), .migrate(to: "v2"), on: connection)
                Issue.record("migrated a tenant whose part_seq \(role) owns: \(outcome)")
            } catch {
                for part in ["sequence shop.part_seq", "owned by \(role)", "42501"] {
                    #expect("\(error)".contains(part), "\(part) not in \(error)")
                }
            }
            #expect(try catalog.requireTenant(try TenantName("shop"), on: connection).version == "v1")
        }
    }
}
