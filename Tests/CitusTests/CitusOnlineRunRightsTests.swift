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

    /// The in-schema swap gives a column the rights of the column it is through the steps, as
    /// offline: the renamed one keeps its own, the `email` v3 adds under the name of the one v2
    /// dropped gets none of the old one's (ColumnRightsFamily); nothing of the run is left.
    @Test func onlineOnCitusAColumnGetsOnlyTheRightsOfTheColumnItIs() async throws {
        try await CitusFixture.with { fixture in
            try await Self.withFamily(fixture, "Contacts", versions: ColumnRightsFamily.versions, mappings: ColumnRightsFamily.mappings) { migrator in
                let tenant = fixture.names(1, "rights")[0], twin = fixture.names(1, "rightstwin")[0]
                let schemas = ["tenant_" + tenant, "tenant_" + twin], connection = fixture.connection
                _ = try await migrator.createTenants([tenant, twin], version: "v1", jobs: 1)
                try fixture.placeOnTheSameWorker(schemas[1], as: schemas[0])
                let role = fixture.prefix + "rights"
                try connection.execute("CREATE ROLE \(id: role)")
                defer {
                    _ = try? connection.execute("DROP OWNED BY \(id: role)")
                    _ = try? connection.execute("DROP ROLE \(id: role)")
                }
                for schema in schemas {
                    try connection.execute(unsafeSQL: ColumnRightsFamily.seed(schema))
                    try connection.execute(unsafeSQL: "GRANT USAGE ON SCHEMA \(schema) TO \(role)")
                    for grant in ColumnRightsFamily.grants(inSchema: schema, role: role) { try connection.execute(unsafeSQL: grant) }
                }
                let online = try await migrator.migrate(tenant: tenant, MigrationRequest(.move, to: "v3", allowDestructive: true, online: .on))
                #expect(online.outcome == .migrated)
                #expect(online.online?.mode == "shadow", "\(String(describing: online.online))")
                _ = try await migrator.migrate(tenant: twin, MigrationRequest(.move, to: "v3", allowDestructive: true))
                let rights = try schemas.map { try ColumnRightsFamily.columnRights($0, role: role, on: connection) }
                #expect(rights[0] == rights[1], "online \(rights[0]), offline \(rights[1])")
                #expect(rights[1] == ColumnRightsFamily.rightsAtV3)
                for grantee in [role, "public"] {
                    #expect(try !connection.scalar("SELECT has_column_privilege($1, $2, 'email', 'SELECT')", [grantee, schemas[0] + ".contact"], as: Bool.self), "\(grantee)")
                }
                #expect(try connection.relations(of: schemas[0], like: "\\_tm\\_%").filter { !$0.hasPrefix("_tm_archive") }.isEmpty)
            }
        }
    }
}
