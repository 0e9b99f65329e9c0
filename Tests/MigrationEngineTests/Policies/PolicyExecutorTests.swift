import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// What a policy saw, across the stages of one step.
struct StagesSeen {
    var instances: [Int64] = []
    var relationships: [Int64] = []
    var stages: [String] = []
}

/// The Recipes ingredient policy, recording every row and stage it is given.
struct RecordingIngredientPolicy: MigrationPolicy {
    let recorder: Locked<StagesSeen>
    let real = RecipeIngredientToIngredientAndUnitOfMeasure()

    /// A Recipes migrator whose ingredient policy is this one, and what it records.
    static func migrator(_ conninfo: String) throws -> (migrator: TenantMigrator, recorder: Locked<StagesSeen>) {
        let recorder = Locked(StagesSeen())
        var policies = RecipesPolicies.registry
        policies.register("RecipeIngredientToIngredientAndUnitOfMeasure") { RecordingIngredientPolicy(recorder: recorder) }
        return (try makeRecipesMigrator(conninfo, policies: policies), recorder)
    }
    var transforms: [String] { real.transforms }
    var loses: [PolicyLoss] { real.loses }

    func begin(_ context: PolicyContext) throws { recorder.withLock { $0.stages.append("begin") } }
    func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {
        recorder.withLock { $0.instances.append(source.id) }
        try real.createDestinationInstances(for: source, in: context)
    }
    func endInstanceCreation(_ context: PolicyContext) throws { recorder.withLock { $0.stages.append("endInstanceCreation") } }
    func createRelationships(for source: SourceRow, in context: PolicyContext) throws {
        recorder.withLock { $0.relationships.append(source.id) }
        // Pass 1's associations are there for pass 2.
        guard context.destinations(of: source.id, mapping: "RecipeIngredientToIngredientAndUnitOfMeasure").count == 1 else {
            throw TestFailure("no association for row \(source.id)")
        }
    }
    func endRelationshipCreation(_ context: PolicyContext) throws { recorder.withLock { $0.stages.append("endRelationshipCreation") } }
    func validate(_ context: PolicyContext) throws {
        // Constraints are in place and every buffered write has landed.
        let missing = try context.execute("SELECT count(*) FROM \(context.qualifiedTable(of: "RecipeIngredient")) WHERE ingredient_id IS NULL")
            .first!.decode(Int.self, at: 0)
        recorder.withLock { $0.stages.append("validate \(missing)") }
    }
    func end(_ context: PolicyContext) throws { recorder.withLock { $0.stages.append("end") } }
}

@Suite("Policies stream their source rows")
struct PolicyExecutorTests {
    /// 12,000 source rows, stored in random physical order with gaps in their ids, reach the policy
    /// exactly once each and in id order, in batches of 5,000: the first read by a query, the
    /// rest through a cursor over the rows after it.
    @Test func everySourceRowExactlyOnceInIdOrder() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, recorder) = try RecordingIngredientPolicy.migrator(conninfo)
            let schema = try await migrator.createTenant("big", version: "v2").schema
            let connection = try Connection(conninfo)
            try connection.fixtureScript("""
                INSERT INTO \(schema).recipe (id, name, type) SELECT g, 'Recipe ' || g, 'Other' FROM generate_series(1, 100) g;
                INSERT INTO \(schema).recipe_ingredient (id, name, unit_of_measure, recipe_id)
                    SELECT g * 7 + (g % 3), 'Ingredient ' || (g % 250), 'unit ' || (g % 250 % 11), g % 100 + 1
                    FROM generate_series(1, 12000) g ORDER BY md5(g::text);
                """)
            // The table really is out of order on disk.
            let physical = try connection.execute(unsafeSQL: "SELECT id FROM \(schema).recipe_ingredient LIMIT 50").map { try $0.decode(Int64.self, at: 0) }
            #expect(physical != physical.sorted())
            let ids = try connection.execute(unsafeSQL: "SELECT id FROM \(schema).recipe_ingredient ORDER BY id").map { try $0.decode(Int64.self, at: 0) }
            #expect(ids.count == 12_000)

            _ = try await migrator.migrate(tenant: "big", to: "v3")
            #expect(recorder.value.instances == ids)
            #expect(recorder.value.relationships == ids)
            #expect(recorder.value.stages == ["begin", "endInstanceCreation", "endRelationshipCreation", "validate 0", "end"])
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).ingredient", as: Int.self) == 250)
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).unit_of_measure", as: Int.self) == 11)
            #expect(try connection.scalar("""
                SELECT count(*)::int FROM \(schema).recipe_ingredient ri JOIN \(schema).ingredient i ON i.id = ri.ingredient_id
                WHERE i.name = 'Ingredient ' || ((ri.id / 7) % 250)
                """, as: Int.self) == 12_000)
            #expect(try await verifyClean(migrator, "big"))
        }
    }
}
