import EntityModel
import Foundation
import MigrationEngine
import PostgresTestSupport
import Testing

/// Issue 35: a mapping file's mistakes are each reported once, where they are, with the names that
/// would have been right.
@Suite("Mapping files: one mistake, one true message")
struct MappingLoaderWordingTests {
    static let bugTracker = try! ModelFamily.load(from: PackagePaths.bugTrackerFamily)
    static let mapping = try! String(contentsOf: PackagePaths.bugTrackerFamily.appendingPathComponent("Mappings/v2-to-v3.yaml"), encoding: .utf8)

    func diagnostics(_ text: String) -> [String] {
        do {
            _ = try MappingModel.load(yaml: text, file: "BugTracker/Mappings/v2-to-v3.yaml", family: Self.bugTracker, policies: PolicyRegistry())
            return []
        } catch {
            return "\(error)".components(separatedBy: "\n")
        }
    }

    /// A mapping without `source:` is one mistake: the relationship that names it does not also
    /// claim that the file does not define it.
    @Test func aMissingSourceIsOneMistake() throws {
        let text = Self.mapping.replacingOccurrences(of: "    source: Issue\n    destination: Status\n", with: "    destination: Status\n")
        #expect(text != Self.mapping)
        let lines = diagnostics(text)
        #expect(lines.count == 1 && lines[0].contains("an entity mapping needs `name`, `source` and `destination`"), "\(lines)")
        #expect(!lines.joined().contains("which this file does not define"), "\(lines)")
    }

    /// A typo in a destination attribute lists the attributes there are, as a source typo does.
    @Test func aDestinationTypoListsTheAlternatives() throws {
        let text = Self.mapping.replacingOccurrences(of: "      priority: \"coalesce(source.priority, 0)\"", with: "      prioriti: \"coalesce(source.priority, 0)\"")
        #expect(text != Self.mapping)
        let lines = diagnostics(text)
        #expect(lines.count == 1 && lines[0].contains("Issue in v3 has no attribute \"prioriti\" (it has dueDate, priority, summary)"), "\(lines)")
    }

}
