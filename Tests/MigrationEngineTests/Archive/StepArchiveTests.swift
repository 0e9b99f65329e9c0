import EntityModel
import Foundation
import LibPQ
@testable import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing

extension Connection {
    /// md5 of every model table of `schema` (not the `_tm_` ones), rows ordered by id, each row
    /// as JSON with its keys sorted, so a column that went and came back at the end of the table
    /// compares equal.
    func modelTableChecksums(schema: String) throws -> [String: String] {
        let tables: [String] = try execute("SELECT tablename::text FROM pg_tables WHERE schemaname = $1 AND tablename NOT LIKE '\\_tm\\_%' ORDER BY 1", [schema])
            .map { try $0.decode(String.self, at: 0) }
        var sums: [String: String] = [:]
        for table in tables {
            sums[table] = try scalar(
                "SELECT coalesce(md5(string_agg(to_jsonb(t)::text, ',' ORDER BY t.id)), 'empty') FROM \(quoteIdentifier(schema)).\(quoteIdentifier(table)) t",
                as: String.self)
        }
        return sums
    }
}

/// Issue 10: what a step destroys or overwrites goes to the tenant's archive, and the reverse step
/// gives it back (compare-and-restore), without `--allow-destructive`.
@Suite("Archive and restore")
struct StepArchiveTests {
    /// Recipes data with Meat and Fish recipes and conflicting units (a name with several units).
    /// The Recipes tenant `acme` at v1, holding ``data()``.
    static func acmeAtV1(_ conninfo: String) async throws -> (TenantMigrator, schema: String, Connection, RecipeData) {
        let migrator = try makeRecipesMigrator(conninfo)
        let schema = try await migrator.createTenant("acme", version: "v1").schema
        let connection = try Connection(conninfo)
        let data = Self.data()
        try data.insert(into: schema, version: "v1", on: connection)
        return (migrator, schema, connection, data)
    }

    static func data() -> RecipeData {
        var data = RecipeData(recipes: 300, ingredients: 2_000)
        for index in stride(from: 0, to: data.ingredients.count, by: 7) where data.ingredients[index].unit != nil {
            data.ingredients[index].unit = data.ingredients[index].unit == "g" ? "kg" : "g"
        }
        return data
    }

    @Test func v1ToV3ToV1RestoresEveryTableExactly() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, schema, connection, data) = try await Self.acmeAtV1(conninfo)
            #expect(data.meatAndFish > 50)
            let conflicting = try connection.scalar(
                "SELECT count(*)::int FROM (SELECT name FROM \(schema).recipe_ingredient GROUP BY name HAVING count(DISTINCT unit_of_measure) > 1) n", as: Int.self)
            #expect(conflicting > 10)
            let before = try connection.modelTableChecksums(schema: schema)

            // No consent needed: everything destroyed is archived.
            let plan = try migrator.plan(from: "v1", to: "v3")
            #expect(plan.lostChanges(archiving: true).isEmpty, "\(plan.lostChanges(archiving: true))")
            #expect(!plan.lostChanges(archiving: false).isEmpty)
            #expect(try await migrator.migrate(tenant: "acme", to: "v3").outcome == .migrated)
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).recipe WHERE type IN ('Meat', 'Fish')", as: Int.self) == 0)
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema)._tm_archive WHERE table_name = 'recipe' AND column_name = 'type'", as: Int.self) == data.meatAndFish)
            #expect(try await verifyClean(migrator, "acme"))

            #expect(try migrator.plan(from: "v3", to: "v1").lostChanges(archiving: true).isEmpty)
            let down = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(down.outcome == .migrated && down.toVersion == "v1")
            #expect(try connection.modelTableChecksums(schema: schema) == before)
            #expect(try await verifyClean(migrator, "acme"))
            // The entries used are gone.
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema)._tm_archive WHERE step_from = 'v2' AND step_to = 'v3'", as: Int.self) == 0)
        }
    }

    /// A value a policy archives that the step's own copy took already (RecipeTypeToEntree archives
    /// each Meat or Fish type, which its `transforms` had copied) is kept once: the copy noted its
    /// rows, so the policy's values are not sent at all; past the rows a copy notes, the policy's
    /// values go through the staging table, and the duplicates are removed there. Either way one
    /// entry per row, and the way down gives every type back.
    @Test(arguments: [20, 26_000])
    func aValueThePlanCopiedIsArchivedOnceWhateverThePolicyArchives(recipes: Int) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (logger, store) = RecordingLogHandler.logger(level: .debug)
            let migrator = try makeRecipesMigrator(conninfo, logger: logger)
            let schema = try await migrator.createTenant("acme", version: "v1").schema
            let connection = try Connection(conninfo)
            try connection.loadRecipes(tenants: ["acme"], recipes: recipes, ingredients: 1)
            let meatAndFish = try connection.scalar("SELECT count(*)::int FROM \(schema).recipe WHERE type IN ('Meat', 'Fish')", as: Int.self)
            #expect((meatAndFish > StepArchive.copiedRowsNoted) == (recipes > 1_000))

            store.removeAll()
            #expect(try await migrator.migrate(tenant: "acme", to: "v3").outcome == .migrated)
            let sent = store.entries.filter { $0.level == .debug }.map(\.message)
            let policyInserts = sent.count { $0.hasPrefix("INSERT INTO") && $0.contains("_tm_archive") && $0.contains("NOT EXISTS") }
            let staged = sent.count { $0.hasPrefix("COPY pg_temp.") && $0.contains("_tm_archive_stage_") }
            #expect(policyInserts == 0, "the policy's values are all in the copy, or too many for one INSERT")
            #expect((staged > 0) == (meatAndFish > StepArchive.copiedRowsNoted), "\(staged) batches staged")
            let entries = try connection.execute(unsafeSQL: """
                SELECT count(*)::int, count(DISTINCT row_id)::int FROM \(schema)._tm_archive WHERE table_name = 'recipe' AND column_name = 'type'
                """)[0]
            #expect(try entries.decode(Int.self, at: 0) == meatAndFish && entries.decode(Int.self, at: 1) == meatAndFish)

            #expect(try await migrator.rollback(tenant: "acme", to: "v1").outcome == .migrated)
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).recipe WHERE type IN ('Meat', 'Fish')", as: Int.self) == meatAndFish)
        }
    }

    @Test func compareAndRestoreKeepsWhatTheAppChanged() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, schema, connection, data) = try await Self.acmeAtV1(conninfo)
            let meat = data.recipes.filter { $0.type == "Meat" }.map(\.id)
            let changed = meat[0]
            _ = try await migrator.migrate(tenant: "acme", to: "v3")

            // The app changes one former Meat recipe to Dessert and adds a RecipeIngredient.
            try connection.execute(unsafeSQL: "UPDATE \(schema).recipe SET type = 'Dessert' WHERE id = $1", [changed])
            let ingredient = try connection.scalar("SELECT id FROM \(schema).ingredient WHERE name = 'Crème fraîche'", as: Int64.self)
            let added = try connection.scalar(
                "INSERT INTO \(schema).recipe_ingredient (quantity, recipe_id, ingredient_id) VALUES (2.5, $1, $2) RETURNING id", [changed, ingredient], as: Int64.self)
            let unit = try connection.rows("SELECT u.name FROM \(schema).ingredient i LEFT JOIN \(schema).unit_of_measure u ON u.id = i.unit_of_measure_id WHERE i.id = $1", [ingredient])

            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try connection.scalar("SELECT type FROM \(schema).recipe WHERE id = $1", [changed], as: String.self) == "Dessert")
            let types = try connection.rows("SELECT r.id::text, r.type FROM \(schema).recipe r WHERE r.type IN ('Meat', 'Fish') ORDER BY r.id")
            let expected = data.recipes.filter { ($0.type == "Meat" || $0.type == "Fish") && $0.id != changed }.map { [String($0.id), $0.type] as [String?] }
            #expect(types == expected)
            // The new row gets the step's normal result: its ingredient's name and unit.
            #expect(try connection.rows("SELECT name, unit_of_measure FROM \(schema).recipe_ingredient WHERE id = $1", [added]) == [["Crème fraîche", unit[0][0]]])
            // The entry the app overrode stays in the archive until pruned. (The rollback keeps
            // the types v3 had too, under v3 → v2: the way up again rewrites them in place.)
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema)._tm_archive WHERE table_name = 'recipe' AND column_name = 'type' "
                + "AND step_from = 'v2' AND step_to = 'v3'", as: Int.self) == 1)
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema)._tm_archive WHERE table_name = 'recipe' AND column_name = 'type' "
                + "AND step_from = 'v3' AND step_to = 'v2'", as: Int.self) == data.recipes.count)
            #expect(try await verifyClean(migrator, "acme"))
        }
    }

    @Test func droppedColumnComesBack() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try makeRecipesMigrator(conninfo)
            let schema = try await migrator.createTenant("acme", version: "v2").schema
            let connection = try Connection(conninfo)
            try connection.execute(unsafeSQL: "INSERT INTO \(schema).recipe (name, type, servings, prep_minutes) SELECT 'R' || n, 'Other', n, n * 5 FROM generate_series(1, 500) AS n")
            let before = try connection.modelTableChecksums(schema: schema)
            #expect(try migrator.plan(from: "v2", to: "v1").lostChanges(archiving: true).isEmpty)
            _ = try await migrator.rollback(tenant: "acme", to: "v1")
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema)._tm_archive WHERE column_name = 'prep_minutes'", as: Int.self) == 500)
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            #expect(try connection.scalar("SELECT sum(prep_minutes)::int FROM \(schema).recipe", as: Int.self) == 5 * 500 * 501 / 2)
            #expect(try connection.modelTableChecksums(schema: schema) == before)
            #expect(try await verifyClean(migrator, "acme"))
        }
    }

    @Test func noArchiveNeedsConsentAndLoses() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            var migrator = try makeRecipesMigrator(conninfo)
            migrator.archives = false
            let schema = try await migrator.createTenant("acme", version: "v2").schema
            let connection = try Connection(conninfo)
            try connection.execute(unsafeSQL: "INSERT INTO \(schema).recipe (name, type, prep_minutes) VALUES ('Soup', 'Other', 10)")
            if let error = await migrationFailure("--no-archive needs consent", {
                _ = try await migrator.rollback(tenant: "acme", to: "v1")
            }) {
                #expect(error.refusedChanges != nil, "\(error)")
            }
            _ = try await migrator.rollback(tenant: "acme", to: "v1", allowDestructive: true)
            #expect(try connection.scalar("SELECT to_regclass($1) IS NULL", ["\(schema)._tm_archive"], as: Bool.self))
            _ = try await migrator.migrate(tenant: "acme", to: "v2")
            #expect(try connection.rows("SELECT prep_minutes::text FROM \(schema).recipe") == [[nil]])
        }
    }

    @Test func archiveListShowsEntriesPerTenantAndStepAndPruneDeletesOldOnes() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try makeRecipesMigrator(conninfo)
            let connection = try Connection(conninfo)
            // No catalog yet: nothing to list or prune, and nothing is created.
            #expect(try await migrator.archiveUsage().isEmpty)
            #expect(try connection.scalar("SELECT count(*)::int FROM pg_namespace WHERE nspname = 'tenant_migrator'", as: Int.self) == 0)

            let data = Self.data()
            for name in ["acme", "globex"] {
                let schema = try await migrator.createTenant(name, version: "v2").schema
                try data.insert(into: schema, version: "v2", on: connection)
            }
            #expect(try await migrator.migrate(tenant: "acme", to: "v3").outcome == .migrated)
            let usage = try await migrator.archiveUsage()
            #expect(usage.map(\.tenant) == ["acme"])
            #expect(usage.first.map { ($0.usage.stepFrom, $0.usage.stepTo) } ?? ("", "") == ("v2", "v3"))
            // (The list does not count the marker of what the way back gives back; pruning deletes it too.)
            let entries = try connection.scalar("SELECT count(*)::int FROM tenant_acme._tm_archive WHERE column_name <> '#way back'", as: Int.self)
            let stored = try connection.scalar("SELECT count(*)::int FROM tenant_acme._tm_archive", as: Int.self)
            #expect(usage.first?.usage.entries == entries && entries >= data.meatAndFish && stored > entries)
            #expect((usage.first?.usage.bytes ?? 0) > 0)
            #expect(try await migrator.archiveUsage(tenant: "globex").isEmpty)

            // Entries younger than the cutoff stay; older ones go.
            #expect(try await migrator.pruneArchive(olderThan: .seconds(3600))["acme"] == 0)
            try connection.execute("UPDATE tenant_acme._tm_archive SET archived_at = archived_at - interval '40 days'")
            #expect(try await migrator.pruneArchive(olderThan: .seconds(30 * 86_400), tenant: "acme")["acme"] == stored)
            #expect(try connection.scalar("SELECT count(*)::int FROM tenant_acme._tm_archive", as: Int.self) == 0)
        }
    }
}
