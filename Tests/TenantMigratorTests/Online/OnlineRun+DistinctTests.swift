import EntityModel
import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Rows made per key (`distinct:`, or a row-local policy's `sharedRows`) follow the key's first row
/// (lowest id) during catch-up, as an offline migration of the final data has them: when the app
/// deletes or changes a key's first row, every other row of the key is looked at again.
@Suite("Online runs and distinct keys")
struct OnlineRunDistinctTests {
    /// What the app does: deletes or renames each key's first row, changes its unit, or changes
    /// the unit of the first row of the unit the keys' other rows have (kg): that unit's rows are
    /// migrated again, and each must still be compared with its name's first row (in grams).
    enum Change: String, CaseIterable { case delete, update, unit, firstOfOtherUnit }

    @Test(arguments: Change.allCases.flatMap { change in [RecipesWay.declarative, .policies].map { (change, $0) } }, [OnlinePhase.copying, .built, .catchingUp])
    func aKeysFirstRowChangedDuringCatchUpEndsAsOffline(change: (Change, RecipesWay), phase: OnlinePhase) async throws {
        let (change, way) = change
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try twinsAtV2(conninfo) { name, connection in
                // Five keys whose first row (lowest id) is in grams, copied in the first batch,
                // and whose other rows are in kilograms, copied last.
                try connection.execute(unsafeSQL: "INSERT INTO tenant_\(name).recipe (name) VALUES ('Spiced')")
                let spices = "INSERT INTO tenant_\(name).recipe_ingredient (name, quantity, unit_of_measure, recipe_id) "
                    + "SELECT 'Spice ' || k, 1, $1, 1 FROM generate_series(0, 4) AS k"
                try connection.execute(unsafeSQL: spices, ["g"])
                try connection.loadRecipes(tenants: [name], version: "v2", recipes: 4000)
                try connection.execute(unsafeSQL: spices, ["kg"])
                try connection.execute(unsafeSQL: spices, ["kg"])
            }
            let firstRows = "SELECT min(id) FROM %@.recipe_ingredient WHERE name LIKE 'Spice %%' GROUP BY name"
            @Sendable func apply(in schema: String, on connection: Connection) throws {
                let rows = String(format: firstRows, schema)
                switch change {
                case .delete: try connection.execute(unsafeSQL: "DELETE FROM \(schema).recipe_ingredient WHERE id IN (\(rows))")
                case .update: try connection.execute(unsafeSQL: "UPDATE \(schema).recipe_ingredient SET name = name || ' (old)' WHERE id IN (\(rows))")
                case .unit: try connection.execute(unsafeSQL: "UPDATE \(schema).recipe_ingredient SET unit_of_measure = 'kg' WHERE id IN (\(rows))")
                case .firstOfOtherUnit:
                    try connection.execute(unsafeSQL: "UPDATE \(schema).recipe_ingredient SET unit_of_measure = 'ml' "
                        + "WHERE id = (SELECT min(id) FROM \(schema).recipe_ingredient WHERE unit_of_measure = 'kg')")
                }
            }
            let base = try await migrateOnline(conninfo, way, batchRows: 1000, cutoverChanges: 1, changingAt: phase) { try apply(in: "tenant_online", on: $0) }

            try apply(in: "tenant_twin", on: connection)
            _ = try await base.migrate(tenant: "twin", MigrationRequest(.move, to: "v3"))
            let units = """
                SELECT i.name || ':' || coalesce(u.name, '∅') FROM %@.ingredient i LEFT JOIN %@.unit_of_measure u ON u.id = i.unit_of_measure_id
                WHERE i.name LIKE 'Spice %%' ORDER BY 1
                """
            let online = try connection.column(String(format: units, "tenant_online", "tenant_online"), as: String.self)
            let twin = try connection.column(String(format: units, "tenant_twin", "tenant_twin"), as: String.self)
            #expect(online == twin)
            if change != .firstOfOtherUnit {
                #expect(twin.filter { !$0.contains("(old)") }.allSatisfy { $0.hasSuffix(":kg") }, "\(twin)")
            }
            let destination = try recipesFamily().version(named: "v3")!
            #expect(try tenantContents(schema: "tenant_online", version: destination, on: connection)
                == tenantContents(schema: "tenant_twin", version: destination, on: connection))
        }
    }

    /// The ids of rows made per key are the keys' ranks by first row, as offline, even when the app
    /// adds a key before others (a row renamed to a new name or unit) and removes the first key
    /// (every row of the first name deleted) while the tenant catches up: every key after them
    /// moves, those that existed before the run included (issue 33: "other ids than offline").
    @Test(arguments: [RecipesWay.declarative, .policies], [OnlinePhase.built, .catchingUp])
    func idsOfRowsMadePerKeyAreOfflinesWhenKeysComeAndGo(way: RecipesWay, phase: OnlinePhase) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try twinsAtV2(conninfo) { name, connection in
                try connection.loadRecipes(tenants: [name], version: "v2", recipes: 300)
            }
            @Sendable func apply(in schema: String, on connection: Connection) throws {
                try connection.execute(unsafeSQL: "UPDATE \(schema).recipe_ingredient SET name = 'A new ingredient', unit_of_measure = 'pinch' "
                    + "WHERE id = (SELECT min(id) + 3 FROM \(schema).recipe_ingredient)")
                try connection.execute(unsafeSQL: "DELETE FROM \(schema).recipe_ingredient WHERE name = (SELECT name FROM \(schema).recipe_ingredient ORDER BY id LIMIT 1)")
            }
            let base = try await migrateOnline(conninfo, way, batchRows: 100, changingAt: phase) { try apply(in: "tenant_online", on: $0) }

            try apply(in: "tenant_twin", on: connection)
            _ = try await base.migrate(tenant: "twin", MigrationRequest(.move, to: "v3"))
            let destination = try recipesFamily().version(named: "v3")!
            expectSameContents(try tenantContents(schema: "tenant_online", version: destination, on: connection),
                               try tenantContents(schema: "tenant_twin", version: destination, on: connection))
        }
    }

    /// The ids of rows made per key for keys that existed before the run are offline's, also when
    /// the keys' first rows span the copy's batches and a later name is written in two Unicode
    /// forms (decomposed first, then composed): PostgreSQL, and so `distinct:`, tells them apart,
    /// and an offline run of the policy makes what its lookups make of them. The app changes one
    /// row of a later key during catch-up, whose round matches the key's row by id (issue 33:
    /// "other ids than offline", for keys that existed before the run).
    @Test(arguments: [RecipesWay.declarative, .policies])
    func idsOfKeysThatExistedBeforeTheRunAreOfflinesAcrossBatches(way: RecipesWay) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try twinsAtV2(conninfo) { name, connection in
                try connection.execute(unsafeSQL: "INSERT INTO tenant_\(name).recipe (name) VALUES ('Coffee')")
                let coffee = "INSERT INTO tenant_\(name).recipe_ingredient (name, quantity, unit_of_measure, recipe_id) VALUES ($1, 1, 'ml', 1)"
                try connection.execute(unsafeSQL: coffee, ["Cafe\u{301}"])
                try connection.execute(unsafeSQL: coffee, ["Caf\u{E9}"])
                try connection.loadRecipes(tenants: [name], version: "v2", recipes: 300)
            }
            @Sendable func apply(in schema: String, on connection: Connection) throws {
                try connection.execute(unsafeSQL: "UPDATE \(schema).recipe_ingredient SET quantity = quantity + 1 "
                    + "WHERE id = (SELECT max(id) FROM \(schema).recipe_ingredient WHERE name = 'Ingredient 7')")
            }
            let base = try await migrateOnline(conninfo, way, batchRows: 100, changingAt: .catchingUp) { try apply(in: "tenant_online", on: $0) }

            try apply(in: "tenant_twin", on: connection)
            _ = try await base.migrate(tenant: "twin", MigrationRequest(.move, to: "v3"))
            let destination = try recipesFamily().version(named: "v3")!
            expectSameContents(try tenantContents(schema: "tenant_online", version: destination, on: connection),
                               try tenantContents(schema: "tenant_twin", version: destination, on: connection), "\(way): ")
        }
    }

    /// Migrates tenant `online` to v3 online, the app's `change` made once when the run reaches
    /// `phase` (on a connection of its own); expects it migrated in a shadow. Returns the migrator
    /// without the checkpoint, for the offline twin.
    func migrateOnline(_ conninfo: String, _ way: RecipesWay, batchRows: Int, cutoverChanges: Int? = nil, changingAt phase: OnlinePhase,
                       _ change: @escaping @Sendable (Connection) throws -> Void) async throws -> TenantMigrator {
        let base = try recipesMigrator(conninfo, way)
        var migrator = base
        migrator.settings.online.batchRows = batchRows
        if let cutoverChanges { migrator.settings.online.cutoverChanges = cutoverChanges }
        let changed = Locked(false)
        migrator.settings.online.checkpoint = { checkpoint in
            guard checkpoint.phase == phase, changed.withLock({ done in defer { done = true }; return !done }) else { return }
            try change(Connection(conninfo))
        }
        let result = try await migrator.migrate(tenant: "online", MigrationRequest(.move, to: "v3", online: .on))
        #expect(result.outcome == .migrated)
        #expect(result.online?.mode == "shadow", "\(result.online?.reason ?? "")")
        #expect(changed.value)
        return base
    }
}
