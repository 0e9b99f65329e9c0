import EntityModel
import MigrationEngine
import PostgresTestSupport
import Testing

/// Plans are compiled values: made, inspected and rendered without a server.
struct MigrationPlanTests {
    let family: ModelFamily

    init() throws {
        family = try ModelFamily.load(from: PackagePaths.libraryFamily)
    }

    @Test func aPathKnowsItsDirectionAndPairs() throws {
        let names = family.versionNames
        let up = try family.path(from: names[0], to: names[names.count - 1])
        #expect(up.direction == .up && up.pairs.count == names.count - 1)
        #expect(up.pairs.allSatisfy { $0.isUpward })
        let down = try family.path(from: names[names.count - 1], to: names[0])
        #expect(down.direction == .down)
        #expect(down.pairs.map(\.description) == up.pairs.reversed().map(\.reversed.description))
        #expect(try family.path(from: names[0], to: names[0]).isEmpty == true)
        #expect(throws: UnknownVersion.self) { try family.path(from: names[0], to: "v99") }
        #expect(throws: UnknownVersion.self) { try MigrationPlanner(family: family).plan(from: "v99", to: names[0]) }
    }

    @Test func aCompiledPlanRendersForAnySchemaWithoutAConnection() throws {
        let recipes = try ModelFamily.load(from: PackagePaths.migrationFamily("Recipes"))
        let planner = MigrationPlanner(family: recipes)
        for (from, to) in [("v1", "v2"), ("v2", "v1")] {
            let plan = try planner.plan(from: from, to: to)
            #expect(!plan.steps.isEmpty)
            for step in plan.steps {
                #expect(step.direction == plan.direction)
                let a = step.describe(inSchema: "tenant_a")
                let b = step.describe(inSchema: "Tenant B")
                #expect(a.count == step.statements.count)
                #expect(a.map { $0.replacingOccurrences(of: "\"tenant_a\"", with: "\"Tenant B\"") } == b)
                #expect(!a.joined().contains("<schema>"))
            }
        }
    }
}
