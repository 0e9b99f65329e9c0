import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
@testable import TenantMigrator
import TenantMigratorTestSupport
import Testing
import TypedSQL

/// The pieces of the in-schema layout put together by hand, as far as they go without catch-up
/// rounds (docs/Citus.md, "What still stands"): the capture and its renewed lease in the tenant's
/// schema while the copy runs and an app session writes between its batches; then, with writes
/// waiting (EXCLUSIVE: reads go on), the changes synced into the shadow, the step run by the
/// executor under the shadow's naming, and the swap by renames.
extension CitusTests {
    /// Recipes v2 → v3 with the family's own mapping and its Swift policies, and with the
    /// declarative mappings (`Mappings/Declarative`). Between the copy's
    /// batches an app session inserts recipes with ingredients, renames and re-units ingredients
    /// already copied, and deletes some; the capture logs them on the worker and the sync before
    /// the build brings them into the shadow. The tenant ends as a twin holding the same final rows
    /// migrated offline: tables, columns in order, constraints, indexes, rows and archive entries.
    @Test(arguments: [false, true])
    func onlineOnCitusByHandWritesDuringTheCopyAreCapturedOnTheWorkerAndTheTenantEndsAsOffline(declarative: Bool) async throws {
        try await CitusFixture.with { fixture in
            let directory = recipesDirectory.appendingPathComponent("Mappings/Declarative")
            let migrator = declarative
                ? try TenantMigrator(connectionString: fixture.conninfo, familyDirectory: recipesDirectory, mappingsDirectory: directory,
                                     policies: RecipesPolicies.registry, catalog: fixture.catalog, logger: quietLogger)
                : try fixture.migrator()
            let tenant = fixture.names(1, "hand")[0], twin = fixture.names(1, "twin")[0]
            _ = try await migrator.createTenants([tenant, twin], version: "v2", jobs: 1)
            try fixture.connection.loadRecipes(tenants: [tenant], version: "v2", recipes: 30)
            let schema = "tenant_" + tenant, twinSchema = "tenant_" + twin, connection = fixture.connection
            let family = try recipesFamily()
            let source = try #require(family.version(named: "v2"))
            let liveTables = source.relationalSchema().tables.map(\.name).sorted()
            // As the twin's migrator loads them: the family's own, or with its v2 → v3 replaced by the declarative one.
            let own = try MappingModel.loadAll(for: family, policies: RecipesPolicies.registry)
            let mappings = declarative ? MappingModel.replacing(own, with: try MappingModel.loadAll(in: directory, for: family, policies: RecipesPolicies.registry)) : own
            let step = try MigrationPlanner(family: family, mappings: mappings, hooks: RecipesPolicies.registry).plan(from: "v2", to: "v3").steps[0]

            let lease = InSchemaLease(schema: schema, naming: .citusShadow, holder: "by hand", duration: .seconds(10))
            let capture = ChangeCapture(schemas: try OnlineSchemas.of(schema, on: connection), inSchemaLease: lease)
            try connection.transaction { connection in
                try lease.create(on: connection)
                try capture.createLog(on: connection)
                try capture.install(on: liveTables.map { ($0, ["id"], []) }, connection: connection)
            }
            let renewer = try InSchemaLease.Renewer(lease, connectionString: fixture.conninfo)
            defer { renewer.stop() }

            let shadow = ShadowTables(version: source, live: schema, schema: schema, naming: .citusShadow)
            try connection.transaction { try shadow.create(on: $0) }
            let app = try Connection(fixture.conninfo, logger: quietLogger)
            var writes = 0
            for table in liveTables {
                var cursor = ShadowTables.Cursor(table: table)
                while !cursor.done {
                    _ = try shadow.copyBatch(&cursor, limit: 15, on: connection)
                    try appWrites(writes, in: schema, on: app)
                    writes += 1
                }
            }
            #expect(writes >= 6)
            // The twin gets the same final rows (the app is done), to migrate offline.
            for table in liveTables {
                try connection.execute("INSERT INTO \(schema: twinSchema, table: table) SELECT * FROM \(schema: schema, table: table)")
            }

            // The lease only has to outlive the sync: the triggers go in the same transaction.
            renewer.stop()
            try connection.transaction { connection in
                try connection.execute("LOCK TABLE \(liveTables.map { "\(schema: schema, table: $0)" as SQL }, joinedBy: ", ") IN EXCLUSIVE MODE")
                try CatchUpRound.prepare(on: connection)
                let taken = try capture.take(on: connection)
                #expect(taken.entries >= writes, "\(taken)")
                try shadow.sync(on: connection)
                try shadow.finish(on: connection)
                try shadow.analyze(on: connection)
                var executor = StepExecutor(schema: schema, connection: connection, options: .init(online: true))
                executor.naming = .citusShadow
                _ = try executor.run(step)
                try ChangeCapture.removeTriggers(from: liveTables.map { "\(schema: schema, table: $0)" }, on: connection)
                // The run's own objects carry the shadow's naming too: gone before the swap, which
                // renames every `_tm_shadow_` relation of the schema to the model's name.
                let own: [SQL] = [ChangeCapture.logTable, InSchemaLease.table].map { "\(table: TableNaming.citusShadow.name($0))" }
                try connection.execute("DROP TABLE \(own, joinedBy: ", ")", schema: schema)
                for function in [ChangeCapture.rowFunction, ChangeCapture.truncateFunction] {
                    try connection.execute("DROP FUNCTION \(table: TableNaming.citusShadow.name(function))()", schema: schema)
                }
                try InSchemaSwap(schema: schema, live: liveTables).run(on: connection)
                let swapped = step.destination.relationalSchema().tables.map(\.name) + [TenantArchive.tableName]
                try connection.pipeline(swapped.map { ShadowTables.autovacuumReset(schema: schema, table: $0) }, schema: schema)
            }
            let retired: [SQL] = liveTables.map { "\(table: InSchemaSwap.retired.name($0))" }
            try connection.execute("DROP TABLE \(retired, joinedBy: ", ")", schema: schema)

            _ = try await migrator.migrate(tenant: twin, .migrate(to: "v3"))
            #expect(try connection.relations(of: schema, like: "\\_tm\\_%").filter { !$0.hasPrefix("_tm_archive") }.isEmpty)
            let layout = try connection.layout(of: schema), twinLayout = try connection.layout(of: twinSchema)
            #expect(layout == twinLayout, "only here: \(Set(layout).subtracting(twinLayout).sorted()); only in the twin: \(Set(twinLayout).subtracting(layout).sorted())")
            for table in step.destination.relationalSchema().tables.map(\.name) {
                #expect(try connection.rows(of: schema, table) == connection.rows(of: twinSchema, table), "\(table)")
            }
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).recipe WHERE name LIKE '%(app)'", as: Int.self) > 0)
            let archive = try connection.archiveEntries(of: schema)
            #expect(!archive.isEmpty)
            #expect(try archive == connection.archiveEntries(of: twinSchema))
            #expect(try fixture.colocationGroups(of: schema).count == 1)
            #expect(try fixture.preparedTransactions() == 0)
        }
    }
}

/// What the app does between two batches of the copy: the `n`th of an insert of a recipe with
/// an ingredient, an update of an ingredient already copied (its name and unit), and a delete.
private func appWrites(_ n: Int, in schema: String, on app: Connection) throws {
    switch n % 3 {
    case 0:
        try app.execute("INSERT INTO \(table: "recipe") (name, type, servings, method) SELECT name || ' (app)', type, servings, method FROM \(table: "recipe") WHERE id = \(bind: n + 1)", schema: schema)
        try app.execute("""
            INSERT INTO \(table: "recipe_ingredient") (recipe_id, name, quantity, unit_of_measure)
            SELECT (SELECT max(id) FROM \(table: "recipe")), \(bind: "App ingredient \(n)"), 2, 'g'
            """, schema: schema)
    case 1:
        try app.execute("""
            UPDATE \(table: "recipe_ingredient") SET name = \(bind: "Renamed \(n)"), unit_of_measure = 'kg'
            WHERE id = (SELECT min(id) + \(bind: n) FROM \(table: "recipe_ingredient"))
            """, schema: schema)
    default:
        try app.execute("DELETE FROM \(table: "recipe_ingredient") WHERE id = (SELECT min(id) + \(bind: n) FROM \(table: "recipe_ingredient"))", schema: schema)
    }
}
