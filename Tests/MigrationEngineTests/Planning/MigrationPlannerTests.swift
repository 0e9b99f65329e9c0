import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import Testing

/// Skipping versions (step fusion) and steps that can be neither mapped nor inferred.
@Suite struct MigrationPlannerTests {
    // MARK: i. skipping versions

    static let skipSeed = "INSERT INTO $S.item (name, size) VALUES ('a', 3), ('b', NULL)"

    @Test func skippingVersionsFusesInferredStepsAndMatchesStepByStep() async throws {
        let h = try RuleHarness("Skip")
        try await TestPostgres.withDatabase { c in
            // Up, v2 → v3 backfills qty, which the way up across v1 → v2 may restore from the
            // archive (values a rollback v2 → v1 kept): fused, the restore would come after the
            // backfill. So the pairs run one by one; down, they are fused.
            let up = try h.planner.plan(from: "v1", to: "v3")
            #expect(up.steps.map { $0.versions.map(\.name) } == [["v1", "v2"], ["v2", "v3"]])
            #expect(up.steps.allSatisfy { !$0.isFused })

            try h.build("v1", schema: "fused", seed: Self.skipSeed, on: c)
            try h.build("v1", schema: "steps", seed: Self.skipSeed, on: c)
            try h.migrate("v1", "v3", schema: "fused", on: c)
            try h.migrate("v1", "v2", schema: "steps", on: c)
            try h.migrate("v2", "v3", schema: "steps", on: c)
            for schema in ["fused", "steps"] { try h.expectSchema("v3", schema: schema, on: c) }
            #expect(try h.rows("SELECT id, title, size, qty, price FROM $S.item ORDER BY id", schema: "fused", on: c)
                    == ["1|a|3|0|∅", "2|b|∅|0|∅"])
            #expect(try h.rows("SELECT id, title, size, qty, price FROM $S.item ORDER BY id", schema: "fused", on: c)
                    == (try h.rows("SELECT id, title, size, qty, price FROM $S.item ORDER BY id", schema: "steps", on: c)))

            // Down, v3 → v2 gives back the NULLs the backfill overwrote, and v2 → v1 drops qty again:
            // fused, the drop would archive the backfilled zeros before the restore (issue 30), so
            // the pairs run one by one here too.
            let down = try h.planner.plan(from: "v3", to: "v1")
            #expect(down.steps.map { $0.versions.map(\.name) } == [["v3", "v2"], ["v2", "v1"]])
            #expect(down.steps.allSatisfy { !$0.isFused })
            try h.migrate("v3", "v1", schema: "fused", on: c)
            try h.migrate("v3", "v2", schema: "steps", on: c)
            try h.migrate("v2", "v1", schema: "steps", on: c)
            for schema in ["fused", "steps"] { try h.expectSchema("v1", schema: schema, on: c) }
            #expect(try h.rows("SELECT id, name, size FROM $S.item ORDER BY id", schema: "fused", on: c) == ["1|a|3", "2|b|∅"])
            #expect(try h.rows("SELECT id, name, size FROM $S.item ORDER BY id", schema: "steps", on: c) == ["1|a|3", "2|b|∅"])
            // Up again to v2: qty is NULL as it was there, not the zeros of v3.
            for schema in ["fused", "steps"] {
                try h.migrate("v1", "v2", schema: schema, on: c)
                #expect(try h.rows("SELECT id, label, qty FROM $S.item ORDER BY id", schema: schema, on: c) == ["1|a|∅", "2|b|∅"])
            }
        }
    }

    @Test func fusionIsRefusedWhenAColumnIsTransformedTwice() async throws {
        let h = try RuleHarness("SkipRefused")
        try await TestPostgres.withDatabase { c in
            let up = try h.planner.plan(from: "v1", to: "v3")
            #expect(up.steps.count == 2)
            #expect(up.steps.allSatisfy { !$0.isFused })
            #expect(up.steps.map { $0.versions.map(\.name) } == [["v1", "v2"], ["v2", "v3"]])
            try h.build("v1", seed: "INSERT INTO $S.item (name, size) VALUES ('a', 3), ('b', NULL)", on: c)
            try h.migrateExpecting("v1", "v3", on: c, rows: "SELECT name, size FROM $S.item ORDER BY id", ["a|3", "b|1"])
            try h.migrateExpectingSchema("v3", "v1", on: c)
            // The NULL the backfill overwrote on the way up comes back from the archive.
            #expect(try h.rows("SELECT name, size FROM $S.item ORDER BY id", on: c) == ["a|3", "b|∅"])
        }
    }

    // MARK: j. impossible steps

    @Test func aStepThatIsNeitherMappedNorInferableFailsAtPlanning() throws {
        let h = try RuleHarness("Impossible")
        func reasons(_ from: String, _ to: String) -> [String] {
            do {
                _ = try h.planner.plan(from: from, to: to)
                Issue.record("\(from) → \(to) was planned")
            } catch let PlanningError.stepNotPossible(f, t, reasons) {
                #expect(f == from && t == to, "\(f) → \(t)")
                return reasons
            } catch {
                Issue.record("\(error)")
            }
            return []
        }
        let required = reasons("v1", "v2")
        #expect(required.contains { $0.contains("Item.code") && $0.contains("no default") }, "\(required)")
        let cast = reasons("v2", "v3")
        #expect(cast.contains { $0.contains("Item.flag") && $0.contains("cannot cast") }, "\(cast)")
        // The whole path fails on its first impossible pair, naming it.
        do {
            _ = try h.planner.plan(from: "v1", to: "v3")
            Issue.record("v1 → v3 was planned")
        } catch {
            #expect("\(error)".contains("cannot migrate v1 → v2"), "\(error)")
            #expect("\(error)".contains("Item.code"), "\(error)")
        }

        let checks = h.planner.checkFamily()
        func check(_ from: String, _ to: String) -> MigrationPlanner.PairCheck? { checks.first { $0.source == from && $0.destination == to } }
        #expect(check("v1", "v2")?.isPossible == false)
        #expect(check("v2", "v1")?.isPossible == true)
        #expect(check("v2", "v3")?.isPossible == false)
        #expect(check("v3", "v2")?.isPossible == false)
        #expect(check("v1", "v2")?.description.contains("IMPOSSIBLE") == true)
    }
}
