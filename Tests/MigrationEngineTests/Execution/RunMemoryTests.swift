import EntityModel
import Foundation
import LibPQ
@testable import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigratorTestSupport
import Testing

/// What a run learns (its policies' source queries, the tables they took ids from, its archive
/// copies and proofs) lives in the run's ``RunMemory``, not in the compiled plan: one compiled plan
/// serves two runs that learn apart, and is the same value after them as before.
@Suite("What a run learns stays with the run")
struct RunMemoryTests {
    @Test func twoRunsOfOneCompiledPlanLearnApartAndLeaveThePlanAsItWas() async throws {
        try await TestPostgres.withDatabase { connection in
            let family = try recipesFamily()
            let planner = MigrationPlanner(family: family, mappings: try MappingModel.loadAll(for: family, policies: RecipesPolicies.registry),
                                           hooks: RecipesPolicies.registry)
            let plan = try planner.plan(from: "v2", to: "v3")
            let policyStep = try #require(plan.steps.first { $0.isPolicyStep }, "v2 → v3 runs the Recipes policies")
            var before = ""
            dump(plan, to: &before)

            let first = RunMemory(), second = RunMemory()
            for (schema, memory) in [("run_memory_a", first), ("run_memory_b", second)] {
                #expect(memory.stepCount == 0)
                try connection.fixtureScript("CREATE SCHEMA \(connection.quoteIdentifier(schema));\n"
                    + family.version(named: "v2")!.relationalSchema().createStatements(inSchema: schema, quoting: connection).joined(separator: ";\n"))
                try RecipeData(recipes: 40, ingredients: 200).insert(into: schema, version: "v2", on: connection)
                _ = try connection.transaction { try plan.run(inSchema: schema, on: $0, memory: memory) }
                #expect(try connection.execute("SELECT count(*)::int FROM \(schema: schema, table: "ingredient")")[0].decode(Int.self, at: 0) > 0)
            }

            // Each run learned the policy step's source queries for itself.
            for memory in [first, second] {
                #expect(memory.stepCount == plan.steps.count)
                #expect(memory.memory(of: policyStep).sourceQueries.count > 0)
            }
            #expect(first.memory(of: policyStep) !== second.memory(of: policyStep))
            // A third run starts from nothing.
            #expect(RunMemory().stepCount == 0)

            var after = ""
            dump(plan, to: &after)
            #expect(after == before, "the compiled plan changed during the runs")
        }
    }
}
