import EntityModel
import Foundation
import PostgresTestSupport
import Testing

/// Issue 35: "What changes" says what changed (not `changed` for a type that did not change), and
/// tells apart a relationship and an attribute of one name.
@Suite("ERDiagram: the change list's words")
struct ERDiagramChangeWordingTests {
    @Test func aChangedRowSaysWhatChanged() throws {
        let bugTracker = try ModelFamily.load(from: PackagePaths.bugTrackerFamily)
        let list = ERDiagram(changesAlong: try bugTracker.path(from: "v2", to: "v3")).changeList
        // Issue.priority keeps its type (int32) and becomes required.
        #expect(list.contains("Issue.priority changed, now required"), "\(list)")
        // Issue.status: the text attribute goes, the to-one to Status comes.
        #expect(list.contains("Issue.status (relationship to Status) added") && list.contains("Issue.status (attribute, string) removed"), "\(list)")

        let recipes = try ModelFamily.load(from: PackagePaths.migrationFamily("Recipes"))
        let widened = ERDiagram(changesAlong: try recipes.path(from: "v1", to: "v2")).changeList
        #expect(widened.contains("Recipe.servings changed, type int16 → int32"), "\(widened)")
    }

    /// Issue 34: a key's change of generation (serial, identity) or of its sequence's options is
    /// listed on the key's row, which had no property to match it by.
    @Test func aKeysGenerationAndSequenceOptionsAreListed() throws {
        let versions = [
            ("v1", "key: { type: serial }", "key: { type: integer, identity: always }"),
            ("v2", "key: { type: integer, identity: always, start: 100, increment: 10 }", "key: { type: integer, identity: always, start: 5, maxValue: 1000 }"),
        ]
        let family = try ModelFamily(name: "KeyGen", versions: versions.map { name, account, ticket in
            try ModelVersion(name: name, yaml: """
                entities:
                  Account:
                    \(account)
                    attributes:
                      name: { type: string, optional: true }
                  Ticket:
                    \(ticket)
                """, file: "KeyGen/\(name).yaml")
        })
        let list = ERDiagram(changesAlong: try family.path(from: "v1", to: "v2")).changeList
        #expect(list.contains("Account.id changed, no longer serial, now identity always, now start 100, increment 10"), "\(list)")
        #expect(list.contains("Ticket.id changed, now start 5, increment 1, maxValue 1000"), "\(list)")
        #expect(list.count == 2, "\(list)")
    }
}
