import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// How a cutover looks to the app: its `search_path` names the tenant's schema, whose tables are
/// swapped under the same names, so its next statement, prepared ones included, reads the new
/// tables; its rights and identity sequences carry over.
@Suite("Online cutovers")
struct OnlineCutoverTests {
    @Test func theAppsPreparedStatementsReadTheNewTablesAfterTheCutover() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            try await AppTenant.with(conninfo, at: "v1") { tenant in
                let app = tenant.app
                try app.execute("PREPARE recipes AS SELECT count(*)::int FROM recipe")
                try app.execute("PREPARE named(bigint) AS SELECT name FROM recipe WHERE id = $1")
                try app.execute("PREPARE whole AS SELECT * FROM recipe ORDER BY id LIMIT 1")
                // Past the fifth execution PostgreSQL may switch to a generic plan: both kinds are covered.
                for _ in 0..<7 {
                    _ = try app.execute("EXECUTE recipes")
                    _ = try app.execute("EXECUTE named(1)")
                    _ = try app.execute("EXECUTE whole")
                }
                let appURL = connectionString(conninfo, user: tenant.appRole, password: AppTenant.password)
                let inserted = Locked<[Int64]>([])
                var migrator = try makeRecipesMigrator(conninfo)
                migrator.settings.online.checkpoint = { checkpoint in
                    guard checkpoint.phase == .catchingUp, inserted.value.isEmpty else { return }
                    // The app inserts with ids from the live sequence, and takes one more in a
                    // transaction it rolls back.
                    let writer = try Connection(appURL)
                    try writer.setSearchPath(["tenant_acme"])
                    let ids = try (0..<3).map { _ in
                        try writer.scalar("INSERT INTO recipe (name, type) VALUES ('during', 'Other') RETURNING id", as: Int64.self)
                    }
                    try writer.execute("BEGIN")
                    let lost = try writer.scalar("INSERT INTO recipe (name, type) VALUES ('rolled back', 'Other') RETURNING id", as: Int64.self)
                    try writer.execute("ROLLBACK")
                    inserted.withLock { $0 = ids + [lost] }
                }
                let result = try await migrator.migrate(tenant: "acme", .migrate(to: "v2", online: .on))
                #expect(result.online?.mode == "shadow")

                let live = try tenant.admin.scalar("SELECT count(*)::int FROM tenant_acme.recipe", as: Int.self)
                #expect(try app.scalar("EXECUTE recipes", as: Int.self) == live)
                // A row only the new table has: the prepared statement reads it, so it is not reading the retired table.
                let added = try tenant.admin.scalar("INSERT INTO tenant_acme.recipe (name, type, method) VALUES ('new table only', 'Other', 'x') RETURNING id", as: Int64.self)
                #expect(try app.scalar("EXECUTE recipes", as: Int.self) == live + 1)
                #expect(try app.scalar("EXECUTE named(\(added))", as: String.self) == "new table only")
                // A statement whose result columns changed fails, as after an offline migration: the
                // app at the old version must be redeployed for the new one.
                #expect(throws: PQError.self) { try app.execute("EXECUTE whole") }

                // The sequence is past every id the app took, the rolled-back one included.
                let next = try app.scalar("INSERT INTO recipe (name, type) VALUES ('after', 'Other') RETURNING id", as: Int64.self)
                #expect(next > (inserted.value.max() ?? .max))
                #expect(next > added)
                // The rows the app inserted during the run are there.
                for id in inserted.value.dropLast() {
                    #expect(try tenant.admin.scalar("SELECT name FROM tenant_acme.recipe WHERE id = $1", [id], as: String.self) == "during")
                }
                try tenant.expectNoLeftovers()
            }
        }
    }

    @Test func theAppKeepsItsRightsAndNewTablesGetTheSchemasDefaults() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            try await AppTenant.with(conninfo, at: "v2") { tenant in
                func rights(_ table: String) throws -> String {
                    try tenant.admin.scalar("""
                        SELECT string_agg(p, ',' ORDER BY p) FROM unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER']) AS p
                        WHERE has_table_privilege($1, $2, p)
                        """, [tenant.appRole, "tenant_acme.\(table)"], as: String?.self) ?? ""
                }
                // A right granted by hand, beyond the defaults, is kept too.
                try tenant.admin.execute(unsafeSQL: "GRANT REFERENCES ON tenant_acme.recipe TO \(tenant.admin.quoteIdentifier(tenant.appRole))")
                let before = try ["recipe", "recipe_ingredient"].map(rights)
                let migrator = try makeRecipesMigrator(conninfo)
                _ = try await migrator.migrate(tenant: "acme", .migrate(to: "v3", online: .on))
                #expect(try ["recipe", "recipe_ingredient"].map(rights) == before)
                #expect(before[0] == "DELETE,INSERT,REFERENCES,SELECT,UPDATE")
                for table in ["ingredient", "unit_of_measure"] {
                    #expect(try rights(table) == "DELETE,INSERT,SELECT,UPDATE", "\(table)")
                }
                #expect(try rights("_tm_archive") == "")
                // New rows get ids past the migrated ones in every table.
                let app = tenant.app
                let unit = try app.scalar("INSERT INTO unit_of_measure (name) VALUES ('pinch') RETURNING id", as: Int64.self)
                #expect(unit > (try tenant.admin.scalar("SELECT max(id) FROM tenant_acme.unit_of_measure WHERE name <> 'pinch'", as: Int64.self)))
                _ = try app.execute(unsafeSQL: "INSERT INTO ingredient (name, unit_of_measure_id) VALUES ('Saffron', \(unit))")
            }
        }
    }
}
