import EntityModel
import MigrationEngine
import PostgresTestSupport
import Testing

/// Issue 35: the account says in model terms which rows no mapping reads, instead of printing the
/// SQL predicate it counts them with (700 characters of `NOT ((EXISTS (SELECT 1 FROM {schema}…`).
@Suite("Mapping accounts: rows in words")
struct MappingAccountantWordsTests {
    @Test func theRowsNoMappingReadsAreSaidInModelTerms() throws {
        let family = try ModelFamily.load(from: PackagePaths.bugTrackerFamily)
        let planner = MigrationPlanner(family: family, mappings: try MappingModel.loadAll(for: family, policies: PolicyRegistry()))
        let step = try #require(try planner.plan(from: "v3", to: "v2").steps.first)
        let details = (step.account.destructiveChanges + step.account.dataDependentLosses).map(\.detail)
        let statusNames = try #require(details.first { $0.hasPrefix("drops status.name (Status.name) with table status") }, "\(details)")
        #expect(statusNames.contains("outside the Status rows an Issue links to through Issue.status, where it holds a value"), "\(statusNames)")
        #expect(!details.contains { $0.contains("EXISTS") || $0.contains("{schema}") }, "\(details)")
    }
}
