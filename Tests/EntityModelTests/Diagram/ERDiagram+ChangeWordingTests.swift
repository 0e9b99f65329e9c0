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
}
