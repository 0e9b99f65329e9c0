import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing
import TypedSQL

extension CitusTests {
    /// The tenant's schema gives an app role rights on every new table (default privileges), and
    /// the run's objects live in that schema: while the run copies, the app role writes the live
    /// tables but can neither write the shadow's tables nor the lease or the log (42501); after
    /// the cutover it has its rights on the new version's tables (those of the table each
    /// replaces, and the default privileges on a new one) and none on anything of the run's.
    @Test func onlineOnCitusTheAppRoleCannotTouchTheRunsObjectsAndKeepsItsRights() async throws {
        try await CitusFixture.with { fixture in
            let tenant = try await fixture.recipesTenants(at: "v2", ("rights", 30))[0]
            let schema = "tenant_" + tenant, connection = fixture.connection
            try await fixture.withAppRole(on: schema) { role in
                var migrator = try fixture.migrator()
                try connection.execute("ALTER DEFAULT PRIVILEGES IN SCHEMA \(SQL.schema) GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO \(id: role)", schema: schema)
                let conninfo = fixture.conninfo
                let refusals = Locked<[String]>([])
                migrator.settings.online.batchRows = 15
                migrator.settings.online.checkpoint = { checkpoint in
                    guard checkpoint.phase == .copying, refusals.value.isEmpty else { return }
                    let app = try Connection(conninfo, logger: quietLogger)
                    try app.execute("SET ROLE \(id: role)")
                    try app.execute("UPDATE \(table: "recipe") SET name = name || ' (app)' WHERE id = 1", schema: schema)
                    let attempts: [SQL] = [
                        "INSERT INTO \(table: "_tm_shadow_recipe") (name, type, servings, method) VALUES ('planted', 'Other', 1, 'x')",
                        "UPDATE \(table: "_tm_shadow__tm_online_lease") SET expires_at = now() + interval '1 day'",
                        "DELETE FROM \(table: "_tm_shadow__tm_change_log")",
                    ]
                    for attempt in attempts {
                        do {
                            try app.execute(attempt, schema: schema)
                            refusals.withLock { $0.append("allowed: \(attempt.text(schema: schema))") }
                        } catch let error as PQError {
                            refusals.withLock { $0.append(error.sqlState?.rawValue ?? "\(error)") }
                        }
                    }
                }
                #expect(try await migrator.migrate(tenant: tenant, .migrate(to: "v3", online: .on)).outcome == .migrated)
                #expect(refusals.value == ["42501", "42501", "42501"], "\(refusals.value)")
                #expect(try connection.scalar("SELECT name FROM \(schema).recipe WHERE id = 1", as: String.self).hasSuffix(" (app)"))
                let privilege = { (table: String, right: String) throws -> Bool in
                    try connection.scalar("SELECT has_table_privilege($1, $2, $3)", [role, schema + "." + table, right], as: Bool.self)
                }
                for table in ["recipe", "recipe_ingredient", "ingredient", "unit_of_measure"] {
                    #expect(try privilege(table, "INSERT") && privilege(table, "SELECT"), "\(table)")
                }
                #expect(try !privilege("_tm_archive", "SELECT"))
            }
        }
    }
}
