import EntityModel
import Foundation
import MigrationEngine
import PostgresTestSupport
import Testing
import TypedSQL

/// `distinct:` and `orderBy:` are read and checked when a mapping file loads, like every other
/// key: each mistake with its file and line.
@Suite("Mapping files: distinct mappings")
struct MappingLoaderDistinctTests {
    static let bugTracker = try! ModelFamily.load(from: PackagePaths.bugTrackerFamily)

    @Test func everyMistakeIsReportedWithItsFileAndLine() throws {
        struct Nothing: MigrationPolicy {}
        var policies = PolicyRegistry()
        policies.register("StatusCleanup") { Nothing() }
        let text = try String(contentsOf: fixture("Invalid/bugtracker-v2-to-v3.yaml"), encoding: .utf8)
        let file = "BugTracker/Mappings/v2-to-v3.yaml"
        let expected: [(line: Int, message: String)] = [
            (line(of: "key path to a missing attribute", in: text),
             "mapping IssueToStatus: Issue has no attribute or relationship \"statuz\" (it has dueDate, labels, priority, project, status, summary) in \"lower(source.statuz)\"."),
            (line(of: "distinct with a policy", in: text),
             "mapping StatusByPolicy: distinct: makes one Status per key in SQL, so it cannot also have policy StatusCleanup"),
            (line(of: "distinct in place", in: text),
             "mapping IssueByKey: distinct: makes one Issue per key, but Issue rows are stored in the Issue table in v3: a distinct mapping fills another entity's table."),
            (line(of: "orderBy without distinct", in: text),
             "mapping StatusInOrder: orderBy: says which row of each distinct key comes first, so it needs distinct:."),
            (line(of: "an empty key", in: text), "mapping NoKey: distinct: needs a key"),
            (line(of: "distinct among others", in: text),
             "mapping IssueToIssue: relationship status names distinct mapping IssueToStatus among others; a relationship to a distinct mapping names it alone."),
            (line(of: "from an attribute", in: text),
             "mapping OpenIssueToIssue: relationship status links to the Status that mapping IssueToStatus made for the key of a row of Issue; "
                + "from: \"source.summary\" leads to an attribute, not to a row of Issue."),
            (line(of: "from another entity", in: text),
             "mapping ClosedIssueToIssue: relationship status links to the Status that mapping IssueToStatus made for the key of a row of Issue; "
                + "from: \"source.project\" leads to a row of Project, not to a row of Issue."),
        ]
        #expect(expected.allSatisfy { $0.line > 0 })
        do {
            _ = try MappingModel.load(yaml: text, file: file, family: Self.bugTracker, policies: policies)
            Issue.record("the file has \(expected.count) mistakes")
        } catch {
            #expect(error.diagnostics.count == expected.count, "\(error)")
            for (line, message) in expected {
                #expect(error.description.contains("\(file):\(line): \(message)"), "no diagnostic at line \(line): \(message)\n\(error)")
            }
        }
    }

    /// The family's own file: the key as written, no order (source id), and the short form of a
    /// relationship to a distinct mapping meaning the source row itself.
    @Test func theShortFormLinksEachRowToTheRowOfItsKey() throws {
        let model = try #require(try MappingModel.loadAll(for: Self.bugTracker, policies: PolicyRegistry()).first { $0.sourceVersion == "v2" })
        let statuses = try #require(model.entityMapping(named: "IssueToStatus"))
        #expect(statuses.distinct?.key == "lower(btrim(source.status))" && statuses.distinct?.orderBy == nil)
        #expect(statuses.distinct?.location?.line == 10)
        let link = try #require(model.entityMapping(named: "IssueToIssue")?.relationships.first)
        #expect(link.relationship == "status" && link.mappings == ["IssueToStatus"] && link.from == "source")
    }

    /// `orderBy:` takes a string or a list of `ORDER BY` items.
    @Test func orderByIsAStringOrAList() throws {
        func orderBy(_ yaml: String) throws -> String? {
            try MappingModel.load(yaml: bugTrackerMapping(distinct: "lower(source.status)", orderBy: yaml), file: "t.yaml", family: Self.bugTracker, policies: PolicyRegistry())
                .entityMapping(named: "IssueToStatus")?.distinct?.orderBy
        }
        #expect(try orderBy("\"source.dueDate DESC NULLS LAST\"") == "source.dueDate DESC NULLS LAST")
        #expect(try orderBy("[source.dueDate DESC, source.priority]") == "source.dueDate DESC, source.priority")
        #expect(throws: ModelLoadError.self) { try orderBy("[source.dueDat]") }
    }
}
