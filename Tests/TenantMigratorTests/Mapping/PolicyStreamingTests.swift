import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import Testing

/// Records what a policy saw, across the stages of one step.
final class StageRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var _instances: [Int64] = []
    private var _relationships: [Int64] = []
    private var _stages: [String] = []

    func instance(_ id: Int64) { lock.lock(); _instances.append(id); lock.unlock() }
    func relationship(_ id: Int64) { lock.lock(); _relationships.append(id); lock.unlock() }
    func stage(_ name: String) { lock.lock(); _stages.append(name); lock.unlock() }
    var instances: [Int64] { lock.lock(); defer { lock.unlock() }; return _instances }
    var relationships: [Int64] { lock.lock(); defer { lock.unlock() }; return _relationships }
    var stages: [String] { lock.lock(); defer { lock.unlock() }; return _stages }
}

/// The Recipes ingredient policy, recording every row and stage it is given.
struct RecordingIngredientPolicy: MigrationPolicy {
    let recorder: StageRecorder
    let real = RecipeIngredientToIngredientAndUnitOfMeasure()
    var transforms: [String] { real.transforms }
    var loses: [PolicyLoss] { real.loses }

    func begin(_ context: PolicyContext) throws { recorder.stage("begin") }
    func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {
        recorder.instance(source.id)
        try real.createDestinationInstances(for: source, in: context)
    }
    func endInstanceCreation(_ context: PolicyContext) throws { recorder.stage("endInstanceCreation") }
    func createRelationships(for source: SourceRow, in context: PolicyContext) throws {
        recorder.relationship(source.id)
        // Pass 1's associations are there for pass 2.
        guard context.destinations(of: source.id, mapping: "RecipeIngredientToIngredientAndUnitOfMeasure").count == 1 else {
            throw TestFailure("no association for row \(source.id)")
        }
    }
    func endRelationshipCreation(_ context: PolicyContext) throws { recorder.stage("endRelationshipCreation") }
    func validate(_ context: PolicyContext) throws {
        // Constraints are in place and every buffered write has landed.
        let missing = try context.execute("SELECT count(*) FROM \(context.qualifiedTable(of: "RecipeIngredient")) WHERE ingredient_id IS NULL")
        recorder.stage("validate \(try missing.first!.decode(Int.self, at: 0))")
    }
    func end(_ context: PolicyContext) throws { recorder.stage("end") }
}

@Suite("Policies stream their source rows")
struct PolicyStreamingTests {
    /// 12,000 source rows, stored in random physical order with gaps in their ids, reach the policy
    /// exactly once each and in id order, through several FETCH batches (5,000 rows each).
    @Test func everySourceRowExactlyOnceInIdOrder() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let recorder = StageRecorder()
            var policies = RecipesPolicies.registry
            policies.register("RecipeIngredientToIngredientAndUnitOfMeasure") { RecordingIngredientPolicy(recorder: recorder) }
            let migrator = try recipesMigrator(conninfo, policies: policies)
            let schema = try await migrator.createTenant("big", version: "v2").schema
            let connection = try Connection(conninfo)
            try connection.fixtureScript("""
                INSERT INTO \(schema).recipe (id, name, type) SELECT g, 'Recipe ' || g, 'Other' FROM generate_series(1, 100) g;
                INSERT INTO \(schema).recipe_ingredient (id, name, unit_of_measure, recipe_id)
                    SELECT g * 7 + (g % 3), 'Ingredient ' || (g % 250), 'unit ' || (g % 250 % 11), g % 100 + 1
                    FROM generate_series(1, 12000) g ORDER BY md5(g::text);
                """)
            // The table really is out of order on disk.
            let physical = try connection.execute("SELECT id FROM \(schema).recipe_ingredient LIMIT 50").map { try $0.decode(Int64.self, at: 0) }
            #expect(physical != physical.sorted())
            let ids = try connection.execute("SELECT id FROM \(schema).recipe_ingredient ORDER BY id").map { try $0.decode(Int64.self, at: 0) }
            #expect(ids.count == 12_000)

            _ = try await migrator.migrate(tenant: "big", to: "v3")
            #expect(recorder.instances == ids)
            #expect(recorder.relationships == ids)
            #expect(recorder.stages == ["begin", "endInstanceCreation", "endRelationshipCreation", "validate 0", "end"])
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
