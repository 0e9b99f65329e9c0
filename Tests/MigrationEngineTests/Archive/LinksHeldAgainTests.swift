import EntityModel
import Foundation
import LibPQ
@testable import MigrationEngine
import PostgresTestSupport
import Testing

/// Issue 30, found by the app-change property (seed 22, family 22, with required to-ones): a to-one
/// made to-many (v1 → v2) and back (v2 → v1). The way down moves each row's links into its foreign
/// key (the lowest kept) and drops the join table; it archived **every** link as a whole row, also
/// the ones the foreign key holds. The app then relinked an item at v1; the next way up moved the
/// new link into the join table and restored the archived old one beside it, and the next way
/// down kept the lower of the two: the app's relink was lost, silently. Only the links the foreign
/// key cannot hold need the archive.
@Suite("Archive: links a to-one holds are not given back beside it")
struct LinksHeldAgainTests {
    static let v1 = """
        entities:
          Item:
            attributes:
              name: { type: string }
            relationships:
              tag: { destination: Tag, optional: true }
          Tag:
            attributes:
              label: { type: string }

        """
    static let v2 = v1.replacingOccurrences(of: "tag: { destination: Tag, optional: true }", with: "tag: { destination: Tag, toMany: true }")

    @Test func anAppRelinkAtTheOlderVersionSurvivesTheNextCycle() async throws {
        let family = try ModelFamily(name: "LinksHeldAgain", versions: [
            ModelVersion(name: "v1", yaml: Self.v1, file: "LinksHeldAgain/v1.yaml"), ModelVersion(name: "v2", yaml: Self.v2, file: "LinksHeldAgain/v2.yaml"),
        ])
        let planner = MigrationPlanner(family: family, mappings: [])
        let up = try planner.plan(from: "v1", to: "v2"), down = try planner.plan(from: "v2", to: "v1")
        try await TestPostgres.withDatabase { connection in
            try connection.fixtureScript("CREATE SCHEMA held")
            try connection.fixtureScript(family.version(named: "v1")!.relationalSchema().createStatements(inSchema: "held", quoting: connection).joined(separator: ";\n"))
            try connection.fixtureScript("""
                INSERT INTO held.tag (id, label) VALUES (1, 'one'), (2, 'two'), (3, 'three');
                INSERT INTO held.item (id, name, tag_id) VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', NULL);
                """)
            let joinTable = try #require(family.version(named: "v2")!.relationalSchema().tables.first { if case .joinTable = $0.origin { true } else { false } })
            // (Its item side, then its tag side.)
            let item = try #require(joinTable.columns.first { if case .joinSource = $0.origin { true } else { false } }).name
            let tag = try #require(joinTable.columns.first { if case .joinDestination = $0.origin { true } else { false } }).name
            func links() throws -> [[String?]] {
                try connection.rows("SELECT \(item)::text, \(tag)::text FROM held.\(joinTable.name) ORDER BY 1, 2")
            }
            _ = try connection.transaction { try up.run(inSchema: "held", on: $0) }
            // At v2 the app gives item 2 a second tag: the way down cannot hold it, and archives it.
            try connection.fixtureScript("INSERT INTO held.\(joinTable.name) (\(item), \(tag)) VALUES (2, 3)")
            _ = try connection.transaction { try down.run(inSchema: "held", on: $0) }
            #expect(try connection.rows("SELECT id::text, tag_id::text FROM held.item ORDER BY id") == [["1", "1"], ["2", "2"], ["3", nil]])
            // At v1 the app moves item 1 to tag 3.
            try connection.fixtureScript("UPDATE held.item SET tag_id = 3 WHERE id = 1")
            _ = try connection.transaction { try up.run(inSchema: "held", on: $0) }
            let held = try links()
            #expect(held == [["1", "3"], ["2", "2"], ["2", "3"]], "item 1 has the tag the app gave it, item 2 its second tag back: \(held)")
            _ = try connection.transaction { try down.run(inSchema: "held", on: $0) }
            let items = try connection.rows("SELECT id::text, tag_id::text FROM held.item ORDER BY id")
            #expect(items == [["1", "3"], ["2", "2"], ["3", nil]], "\(items)")
        }
    }
}
