import EntityModel
import MigrationEngine
import Testing

/// Issue 34: what the engine refuses when it plans a step, for keys and sequences it cannot carry.
struct MigrationStepKeysTests {
    func family(_ v1: String, _ v2: String) throws -> ModelFamily {
        try ModelFamily(name: "K", versions: [ModelVersion(name: "v1", yaml: v1, file: "K/v1.yaml"), ModelVersion(name: "v2", yaml: v2, file: "K/v2.yaml")])
    }

    @Test func aChangeOfTheVersionsSequencesIsRefusedWhenPlanned() throws {
        let v1 = "entities:\n  Part:\n    key: { type: bigint }\nsequences:\n  part_seq: { increment: 50 }\n"
        for v2 in [v1.replacingOccurrences(of: "increment: 50", with: "increment: 10"), "entities:\n  Part:\n    key: { type: bigint }\n",
                   v1 + "  other_seq: {}\n"] {
            let planner = MigrationPlanner(family: try family(v1, v2))
            #expect {
                _ = try planner.plan(from: "v1", to: "v2")
            } throws: { error in
                "\(error)".contains("the version's sequences change")
            }
        }
        // Unchanged sequences plan as before.
        let planner = MigrationPlanner(family: try family(v1, v1.replacingOccurrences(of: "  Part:\n", with: "  Part:\n    attributes:\n      name: { type: string, optional: true }\n")))
        _ = try planner.plan(from: "v1", to: "v2")
    }
}
