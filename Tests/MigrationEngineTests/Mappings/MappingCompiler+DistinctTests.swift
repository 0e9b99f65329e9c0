import EntityModel
import Foundation
import LibPQ
@testable import MigrationEngine
import PostgresTestSupport
import TenantMigratorTestSupport
import Testing

/// Distinct mappings compile to set-based SQL (one `INSERT … SELECT` of the keys' first rows, one
/// `UPDATE … FROM` joined on the key for the links) and give, on generated data, exactly what the
/// rule says: one row per key, from its first row, linked from every row of that key.
@Suite("Distinct mappings: compiled SQL and generated data")
struct MappingCompilerDistinctTests {
    static let family = try! ModelFamily.load(from: PackagePaths.bugTrackerFamily)

    /// The family's own mappings, the v2 → v3 one replaced by `orderBy:` where given.
    static func mappings(orderBy: String? = nil) throws -> [MappingModel] {
        let own = try MappingModel.loadAll(for: family, policies: PolicyRegistry())
        guard let orderBy else { return own }
        let text = try String(contentsOf: PackagePaths.bugTrackerFamily.appendingPathComponent("Mappings/v2-to-v3.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "    distinct: \"lower(btrim(source.status))\"\n",
                                  with: "    distinct: \"lower(btrim(source.status))\"\n    orderBy: \"\(orderBy)\"\n")
        let up = try MappingModel.load(yaml: text, file: "BugTracker/Mappings/v2-to-v3.yaml", family: family, policies: PolicyRegistry())
        #expect(up.entityMapping(named: "IssueToStatus")?.distinct?.orderBy == orderBy)
        return MappingModel.replacing(own, with: [up])
    }

    static func statements(_ plan: MigrationPlan) -> [String] {
        plan.describe(inSchema: "s", quoting: PostgreSQLQuoting()).flatMap(\.statements)
    }

    /// In id order: a hash aggregate of the first ids, and the plain one-statement link a DBA would write.
    @Test func inIdOrderTheFirstRowsAreAHashAggregate() throws {
        let plan = try MigrationPlanner(family: Self.family, mappings: try Self.mappings()).plan(from: "v2", to: "v3")
        let sql = Self.statements(plan)
        let key = "lower(btrim(source.\"status\"))"
        let offset = "pg_catalog.current_setting('tenant_migrate.offset_issuetostatus')::bigint"
        #expect(sql.contains("INSERT INTO \"s\".\"status\" (\"id\", \"name\") SELECT \(offset) + pg_catalog.row_number() OVER (ORDER BY source.id), source.\"status\" "
            + "FROM \"s\".\"issue\" AS source WHERE source.id IN (SELECT pg_catalog.min(source.id) FROM \"s\".\"issue\" AS source "
            + "WHERE (\(key)) IS NOT NULL GROUP BY (\(key)))"), "\(sql)")
        #expect(sql.contains("UPDATE \"s\".\"issue\" AS source SET \"status_id\" = tm_key.id FROM (SELECT tm_k.key, \(offset) + pg_catalog.row_number() "
            + "OVER (ORDER BY tm_k.first) AS id FROM (SELECT (\(key)) AS key, pg_catalog.min(source.id) AS first FROM \"s\".\"issue\" AS source "
            + "WHERE (\(key)) IS NOT NULL GROUP BY 1) AS tm_k) AS tm_key WHERE tm_key.key = (\(key))"), "\(sql)")
        #expect(!sql.contains { $0.contains("-- policy") })

        // The compiled form says what it is, for stages that need more than SQL text.
        let step = try #require(plan.steps.first)
        guard case let .perKey(rows)? = step.program.mappings.first(where: { $0.mapping.name == "IssueToStatus" })?.ids else {
            Issue.record("IssueToStatus is not compiled as one row per key")
            return
        }
        #expect(rows.sourceTable == "issue" && rows.order == nil && rows.conditions.isEmpty)
        #expect(rows.key.text(schema: "s") == key)
    }

    /// In another order: `DISTINCT ON` the key, in that order, and ids ranked in it.
    @Test func inAStatedOrderTheFirstRowsAreDistinctOn() throws {
        let plan = try MigrationPlanner(family: Self.family, mappings: try Self.mappings(orderBy: "source.dueDate DESC NULLS LAST")).plan(from: "v2", to: "v3")
        let sql = Self.statements(plan).joined(separator: "\n")
        let key = "lower(btrim(source.\"status\"))"
        #expect(sql.contains("SELECT DISTINCT ON ((\(key))) source.id FROM \"s\".\"issue\" AS source WHERE (\(key)) IS NOT NULL "
            + "ORDER BY (\(key)), source.\"due_date\" DESC NULLS LAST, source.id"), "\(sql)")
        #expect(sql.contains("pg_catalog.row_number() OVER (ORDER BY source.\"due_date\" DESC NULLS LAST, source.id)"), "\(sql)")
    }

    /// Generated issues (statuses in any case, with spaces, blank or NULL; due dates with ties and
    /// NULLs), in id order and latest due date first, several seeds: the Status rows, their ids and
    /// every link are what the rule gives, and the way down gives every spelling back.
    @Test(arguments: [nil, "source.dueDate DESC NULLS LAST"], [UInt64(1), 2, 3])
    func generatedStatusesAreDeduplicatedAndComeBack(orderBy: String?, seed: UInt64) async throws {
        let data = BugTrackerIssues(count: 300, seed: seed)
        let planner = MigrationPlanner(family: Self.family, mappings: try Self.mappings(orderBy: orderBy))
        let (up, down) = (try planner.plan(from: "v2", to: "v3"), try planner.plan(from: "v3", to: "v2"))
        try await TestPostgres.withDatabase { connection in
            try data.insert(intoNewSchema: "t", family: Self.family, on: connection)
            let before = try BugTrackerIssues.issues(in: "t", version: "v2", on: connection)
            _ = try connection.transaction { try up.run(inSchema: "t", on: $0) }

            let expected = data.expected(latestDueFirst: orderBy != nil)
            #expect(try connection.rows("SELECT id::text, name FROM t.status ORDER BY id") == expected.statuses)
            let links = try connection.rows("SELECT id::text, status_id::text FROM t.issue")
            #expect(links.count == data.rows.count)
            for link in links {
                #expect(link[1].flatMap { Int64($0) } == expected.links[Int64(link[0]!)!] ?? nil, "issue \(link[0]!)")
            }
            #expect(try connection.scalar("SELECT count(*)::int FROM t.issue WHERE priority IS NULL", as: Int.self) == 0)

            _ = try connection.transaction { try down.run(inSchema: "t", on: $0) }
            #expect(try BugTrackerIssues.issues(in: "t", version: "v2", on: connection) == before, "every spelling comes back from the archive")
            #expect(try connection.scalar("SELECT count(*)::int FROM pg_tables WHERE schemaname = 't' AND tablename = 'status'", as: Int.self) == 0)
        }
    }
}
