import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigratorTestSupport
import Testing

/// What a distinct mapping keeps: one value per key. The spellings it merges are listed in the
/// account as values lost in the rows that hold them, archived like any other, counted (and
/// refused without consent) when there is no archive.
@Suite("Accounting: distinct mappings")
struct MappingAccountantDistinctTests {
    static let family = try! ModelFamily.load(from: PackagePaths.bugTrackerFamily)

    static func planner(_ mappings: [MappingModel]? = nil) throws -> MigrationPlanner {
        MigrationPlanner(family: family, mappings: try mappings ?? MappingModel.loadAll(for: family, policies: PolicyRegistry()))
    }

    @Test func theAccountSaysWhatIsMerged() throws {
        let plan = try Self.planner().plan(from: "v2", to: "v3")
        let merged = try #require(plan.dataDependentLosses.first { $0.table == "issue" && $0.column == "status" }, "\(plan.dataDependentLosses)")
        #expect(merged.detail.contains("mapping IssueToStatus keeps one value per distinct lower(btrim(source.status)), its first row's (by source.id)"), "\(merged)")
        #expect(merged.rows?.contains("tm_first.value") == true && merged.rows?.contains("NOT (") == false, "a positive predicate: \(merged.rows ?? "")")
        #expect(plan.archivedChanges.contains(merged))
        #expect(plan.lostChanges(archiving: true).isEmpty, "\(plan.lostChanges(archiving: true))")
        #expect(!plan.destructiveChanges.contains { $0.table == "issue" && $0.column == "status" })
        let kept = try #require(plan.steps[0].account.entries(table: "issue", column: "status").first { if case .transformed = $0.fate { true } else { false } })
        #expect(kept.fate == .transformed(by: "mapping IssueToStatus: one Status per distinct lower(btrim(source.status))"))
    }

    /// Without a relationship mapping that links each issue to its Status, which issue had which
    /// status is gone: the whole column is lost (archived, or refused without consent up front).
    @Test func withoutALinkNoRowKeepsItsValue() throws {
        let text = try String(contentsOf: PackagePaths.bugTrackerFamily.appendingPathComponent("Mappings/v2-to-v3.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "    relationships:\n      status: IssueToStatus\n", with: "")
        let up = try MappingModel.load(yaml: text, file: "v2-to-v3.yaml", family: Self.family, policies: PolicyRegistry())
        let plan = try Self.planner([up]).plan(from: "v2", to: "v3")
        #expect(plan.destructiveChanges.contains { $0.table == "issue" && $0.column == "status" && $0.kind == .dropColumn }, "\(plan.destructiveChanges)")
        #expect(plan.lostChanges(archiving: false).contains { $0.table == "issue" && $0.column == "status" })
        #expect(plan.lostChanges(archiving: true).isEmpty)
    }

    /// Generated issues: without the archive, the merged spellings are counted and refused, naming
    /// their rows; with consent they go, with one warning; with the archive they are kept there.
    @Test(arguments: [UInt64(4), 5])
    func mergedSpellingsAreCountedOrArchived(seed: UInt64) async throws {
        let data = BugTrackerIssues(count: 200, seed: seed)
        let merged = data.merged(latestDueFirst: false)
        #expect(merged.count > 5)
        let plan = try Self.planner().plan(from: "v2", to: "v3")
        try await TestPostgres.withDatabase { connection in
            try data.insert(intoNewSchema: "t", family: Self.family, on: connection)
            let before = try BugTrackerIssues.issues(in: "t", version: "v2", on: connection)
            do {
                _ = try connection.transaction { try plan.run(inSchema: "t", on: $0, archives: false) }
                Issue.record("merging spellings without the archive needs consent")
            } catch let error as UnconsentedLoss {
                #expect(error.rowCount == merged.count && error.sampleIDs == Array(merged.prefix(5)), "\(error)")
                #expect(error.loss.table == "issue" && error.loss.column == "status")
            }
            #expect(try BugTrackerIssues.issues(in: "t", version: "v2", on: connection) == before)

            try connection.rolledBack { connection in
                _ = try plan.run(inSchema: "t", on: connection)
                let archived = try connection.column("SELECT row_id FROM t._tm_archive WHERE table_name = 'issue' AND column_name = 'status' ORDER BY row_id", as: Int64.self)
                #expect(archived == merged)
            }

            let (logger, lines) = RecordingLogHandler.logger()
            connection.logger = logger
            _ = try connection.transaction { try plan.run(inSchema: "t", on: $0, allowDestructive: true, archives: false) }
            let warnings = lines.messages(at: .warning).filter { $0.contains("issue") }
            #expect(warnings.count == 1 && warnings[0].contains("\(merged.count) rows"), "\(warnings)")
        }
    }
}
