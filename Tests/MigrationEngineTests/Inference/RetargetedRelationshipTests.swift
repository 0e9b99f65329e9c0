import EntityModel
import Foundation
import LibPQ
@testable import MigrationEngine
import PostgresTestSupport
import Testing

/// Issue 30 (generated families 51 and 99 at seed 22): a relationship that keeps its name but
/// whose destination is another entity than its old destination became (the old one removed and a
/// new one added, or another existing entity) is a new relationship: its links named rows of the
/// old destination, and carried as they are they would name unrelated rows of the new one (an FK
/// violation where no such id exists, a silently wrong link where one does). The inferred step
/// drops the old links (archived) and makes the new relationship empty; the way back gives every
/// link back. Each path must plan and come back exactly (``RoundTripPropertyTests/walk``).
@Suite("Inference: a relationship whose destination is another entity is a new one")
struct RetargetedRelationshipTests {
    /// E3 links to `target` (a many-to-many, a one-directional to-many and a to-one); E1 and E5
    /// are there too, unless `target` takes E5's place (`renamedFrom`: its renamingIdentifier).
    static func version(target: String, renamedFrom: String? = nil) -> String {
        var entities = ["E1", "E3"] + (target == "E1" || target == "E5" ? ["E5"] : [target])
        entities.sort()
        return "entities:\n" + entities.map { entity in
            var lines = ["  \(entity):"]
            if entity == target, let renamedFrom { lines.append("    renamingIdentifier: \(renamedFrom)") }
            // (E5's attribute keeps its name in the entity that takes E5's place.)
            lines.append("    attributes: { a\(["E1", "E3"].contains(entity) ? entity.dropFirst() : "5"): { type: string, optional: true } }")
            if entity == "E3" {
                lines += ["    relationships:", "      many: { destination: \(target), toMany: true, inverse: back }",
                          "      list: { destination: \(target), toMany: true }", "      one: { destination: \(target) }"]
            } else if entity == target {
                lines += ["    relationships:", "      back: { destination: E3, toMany: true, inverse: many }"]
            }
            return lines.joined(separator: "\n") + "\n"
        }.joined()
    }

    static let v1 = version(target: "E5")
    /// E5 removed and E20 added (its renamingIdentifier names no entity of v1).
    static let replaced = version(target: "E20", renamedFrom: "E19")
    /// Retargeted to E1, which exists already.
    static let retargeted = version(target: "E1")
    /// A rename of E5 to E20 (a legitimate one: its links are carried).
    static let renamed = version(target: "E20", renamedFrom: "E5")

    static func check(_ versions: [String], path: [Int]) async throws {
        let models = try versions.enumerated().map { try ModelVersion(name: "v\($0 + 1)", yaml: $1, file: "v\($0 + 1).yaml") }
        let family = try ModelFamily(name: "Retargeted", versions: models)
        let planner = MigrationPlanner(family: family, mappings: [])
        let plans = try zip(path, path.dropFirst()).map { (try planner.plan(from: "v\($0 + 1)", to: "v\($1 + 1)"), false) }
        try await TestPostgres.withDatabase { connection in
            let outcome = try RoundTripPropertyTests.walk(plans, from: models[path[0]], seed: 7, rows: 6, on: connection)
            #expect(outcome.differences.isEmpty, "\(outcome.differences.prefix(3))")
            #expect(outcome.exact.isEmpty, "\(outcome.exact.prefix(3))")
            #expect(outcome.values > 0)
        }
    }

    /// Family 51's shape: the many-to-many's other entity is removed and a new one added.
    @Test func aRelationshipToAReplacedEntityRoundTrips() async throws {
        try await Self.check([Self.v1, Self.replaced], path: [0, 1, 0])
    }

    /// Family 99's shape: the same across a fused step (v1 → v3 in one call).
    @Test func aRelationshipToAReplacedEntityRoundTripsFused() async throws {
        try await Self.check([Self.v1, Self.v1.replacingOccurrences(of: "a3: {", with: "a4: {"), Self.replaced], path: [0, 2, 0])
    }

    /// Retargeted to another existing entity, whose ids overlap: no link may name an E1 row.
    @Test func aRelationshipRetargetedToAnotherEntityRoundTrips() async throws {
        try await Self.check([Self.v1, Self.retargeted], path: [0, 1, 0])
    }

    /// The same for a to-one and a one-directional to-many alone (no inverse to tell by).
    @Test func linksRetargetedToAnotherEntityRoundTrip() async throws {
        func version(_ destination: String) -> String {
            """
            entities:
              E1:
                attributes: { a1: { type: string, optional: true } }
              E3:
                attributes: { a3: { type: string, optional: true } }
                relationships:
                  list: { destination: \(destination), toMany: true }
                  one: { destination: \(destination) }
              E5:
                attributes: { a5: { type: string, optional: true } }
            """
        }
        try await Self.check([version("E5"), version("E1")], path: [0, 1, 0])
        // At v2 no link names an E1 row: E3's links named E5 rows.
        let models = try [version("E5"), version("E1")].enumerated().map { try ModelVersion(name: "v\($0 + 1)", yaml: $1, file: "v\($0 + 1).yaml") }
        let up = try MigrationPlanner(family: try ModelFamily(name: "Retargeted", versions: models), mappings: []).plan(from: "v1", to: "v2")
        try await TestPostgres.withDatabase { connection in
            try connection.execute("CREATE SCHEMA retargeted")
            for statement in models[0].relationalSchema().createStatements(inSchema: "retargeted", quoting: connection) { try connection.execute(unsafeSQL: statement) }
            try RoundTripData(version: models[0], seed: 7, rowsPerEntity: 6).insert(inSchema: "retargeted", on: connection)
            #expect(try connection.scalar("SELECT count(*)::int FROM retargeted.e3 WHERE one_id IS NOT NULL", as: Int.self) > 0)
            _ = try connection.transaction { try up.run(inSchema: "retargeted", on: $0, allowDestructive: true) }
            #expect(try connection.scalar("SELECT count(*)::int FROM retargeted.e3 WHERE one_id IS NOT NULL", as: Int.self) == 0)
            #expect(try connection.scalar("SELECT count(*)::int FROM retargeted.e3_list", as: Int.self) == 0)
        }
    }

    @Test func aRenamedDestinationKeepsItsLinks() async throws {
        let models = try [Self.v1, Self.renamed].enumerated().map { try ModelVersion(name: "v\($0 + 1)", yaml: $1, file: "v\($0 + 1).yaml") }
        let family = try ModelFamily(name: "Renamed", versions: models)
        let plan = try MigrationPlanner(family: family, mappings: []).plan(from: "v1", to: "v2")
        #expect(plan.steps.allSatisfy { $0.destructiveChanges.isEmpty }, "\(plan.steps.flatMap(\.destructiveChanges))")
        try await Self.check([Self.v1, Self.renamed], path: [0, 1, 0])
    }
}
