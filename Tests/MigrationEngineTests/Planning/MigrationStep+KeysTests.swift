import EntityModel
import MigrationEngine
import Testing

/// Issue 34: what the engine refuses when it plans a step, for keys and sequences it cannot carry.
struct MigrationStepKeysTests {
    func family(_ v1: String, _ v2: String) throws -> ModelFamily {
        try ModelFamily(name: "K", versions: [ModelVersion(name: "v1", yaml: v1, file: "K/v1.yaml"), ModelVersion(name: "v2", yaml: v2, file: "K/v2.yaml")])
    }

    /// (Sequences that change are planned: InferredChangesSequenceTests.) Unchanged ones plan no
    /// statement of their own.
    @Test func unchangedSequencesPlanNothingOfTheirOwn() throws {
        let v1 = "entities:\n  Part:\n    key: { type: bigint }\nsequences:\n  part_seq: { increment: 50 }\n"
        // Unchanged sequences plan as before.
        let planner = MigrationPlanner(family: try family(v1, v1.replacingOccurrences(of: "  Part:\n", with: "  Part:\n    attributes:\n      name: { type: string, optional: true }\n")))
        let statements = try planner.plan(from: "v1", to: "v2").steps.flatMap { $0.describe(inSchema: "s") }
        #expect(!statements.contains { $0.contains("SEQUENCE") }, "\(statements)")
    }
}
