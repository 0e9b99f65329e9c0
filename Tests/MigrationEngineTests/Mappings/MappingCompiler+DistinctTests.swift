import EntityModel
import Foundation
import LibPQ
@testable import MigrationEngine
import PostgresTestSupport
import TenantMigratorTestSupport
import Testing
import TypedSQL

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

    /// In id order: the keys fixed by a hash aggregate of the first ids, the rows made from them,
    /// and the plain one-statement link a DBA would write; the keys table goes after pass 2.
    @Test func inIdOrderTheFirstRowsAreAHashAggregate() throws {
        let plan = try MigrationPlanner(family: Self.family, mappings: try Self.mappings()).plan(from: "v2", to: "v3")
        let sql = Self.statements(plan)
        let key = "lower(btrim(source.\"status\"))"
        let keys = "\"s\".\"_tm_keys_IssueToStatus\""
        let expected = [
            "SELECT pg_catalog.set_config('tenant_migrate.offset_issuetostatus', (SELECT coalesce(pg_catalog.max(id), 0) FROM \"s\".\"status\")::text, true)",
            "CREATE TABLE \(keys) AS SELECT tm_k.key, tm_k.first, pg_catalog.current_setting('tenant_migrate.offset_issuetostatus')::bigint "
                + "+ pg_catalog.row_number() OVER (ORDER BY tm_k.first) AS id FROM (SELECT (\(key)) AS key, pg_catalog.min(source.id) AS first "
                + "FROM \"s\".\"issue\" AS source WHERE (\(key)) IS NOT NULL GROUP BY 1) AS tm_k",
            "ANALYZE \(keys)",
            "INSERT INTO \"s\".\"status\" (\"id\", \"name\") SELECT tm_keys.id, source.\"status\" FROM \"s\".\"issue\" AS source "
                + "JOIN \(keys) AS tm_keys ON tm_keys.first = source.id",
        ]
        let start = try #require(sql.firstIndex(of: expected[0]), "\(sql)")
        #expect(Array(sql[start..<start + 4]) == expected)
        let link = "UPDATE \"s\".\"issue\" AS source SET \"status_id\" = tm_key.id FROM \(keys) AS tm_key WHERE tm_key.key = (\(key))"
        let linkIndex = try #require(sql.firstIndex(of: link), "\(sql)")
        #expect(sql[linkIndex + 1] == "DROP TABLE \(keys)")
        #expect(!sql.contains { $0.contains("-- policy") })

        // The compiled form says what it is, for stages that need more than SQL text.
        let step = try #require(plan.steps.first)
        guard case let .perKey(rows)? = step.program.mappings.first(where: { $0.mapping.name == "IssueToStatus" })?.ids else {
            Issue.record("IssueToStatus is not compiled as one row per key")
            return
        }
        #expect(rows.sourceTable == "issue" && rows.order == nil && rows.conditions.isEmpty && rows.keysTable == "_tm_keys_IssueToStatus")
        #expect(rows.key.text(schema: "s") == key)
    }

    /// In another order: the first rows `DISTINCT ON` the key, in that order, and ids ranked in it.
    @Test func inAStatedOrderTheFirstRowsAreDistinctOn() throws {
        let plan = try MigrationPlanner(family: Self.family, mappings: try Self.mappings(orderBy: "source.dueDate DESC NULLS LAST")).plan(from: "v2", to: "v3")
        let sql = Self.statements(plan).joined(separator: "\n")
        let key = "lower(btrim(source.\"status\"))"
        #expect(sql.contains("pg_catalog.row_number() OVER (ORDER BY source.\"due_date\" DESC NULLS LAST, source.id) AS id FROM \"s\".\"issue\" AS source "
            + "WHERE source.id IN (SELECT DISTINCT ON ((\(key))) source.id FROM \"s\".\"issue\" AS source WHERE (\(key)) IS NOT NULL "
            + "ORDER BY (\(key)), source.\"due_date\" DESC NULLS LAST, source.id)"), "\(sql)")
    }

    /// The keys are fixed when the distinct mapping makes its rows: a later mapping that changes
    /// what its filter reads (here NULL priorities into 0) does not move the links to other rows.
    @Test func theLinksFollowTheKeysTheRowsWereMadeFrom() async throws {
        let text = try String(contentsOf: PackagePaths.bugTrackerFamily.appendingPathComponent("Mappings/v2-to-v3.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "    distinct: \"lower(btrim(source.status))\"\n",
                                  with: "    filter: \"source.priority IS NOT NULL\"\n    distinct: \"lower(btrim(source.status))\"\n")
        let up = try MappingModel.load(yaml: text, file: "v2-to-v3.yaml", family: Self.family, policies: PolicyRegistry())
        let plan = try MigrationPlanner(family: Self.family, mappings: [up]).plan(from: "v2", to: "v3")
        let data = BugTrackerIssues(count: 200, seed: 6, nullPriorities: true)
        try await TestPostgres.withDatabase { connection in
            try data.insert(intoNewSchema: "t", family: Self.family, on: connection)
            // Each key's first issue among those with a priority names its Status.
            let first = try connection.rows("""
                SELECT DISTINCT ON (lower(btrim(status))) lower(btrim(status)), status FROM t.issue
                WHERE priority IS NOT NULL AND status IS NOT NULL ORDER BY lower(btrim(status)), id
                """)
            _ = try connection.transaction { try plan.run(inSchema: "t", on: $0, allowDestructive: true) }
            let names = Dictionary(uniqueKeysWithValues: first.map { ($0[0]!, $0[1]!) })
            let linked = try connection.rows("SELECT i.id::text, s.name FROM t.issue i LEFT JOIN t.status s ON s.id = i.status_id")
            let statuses = Dictionary(uniqueKeysWithValues: data.rows.map { (String($0.id), $0.status) })
            #expect(linked.count == data.rows.count)
            for row in linked {
                let key = BugTrackerIssues.key(statuses[row[0]!] ?? nil)
                #expect(row[1] == key.flatMap { names[$0] }, "issue \(row[0]!)")
            }
            #expect(try connection.scalar("SELECT count(*)::int FROM pg_tables WHERE schemaname = 't' AND tablename LIKE '\\_tm\\_keys%'", as: Int.self) == 0)
        }
    }

    /// `from:` is a key path or any SQL expression that gives a source row's id: issue 20's
    /// workaround before `distinct:` (a Status from each status's first issue, every issue linked
    /// through a subquery) links every issue to a Status of the same name as the distinct mapping.
    @Test func fromTakesAnExpression() async throws {
        let text = """
            source: v2
            destination: v3
            entityMappings:
              - name: FirstIssueToStatus
                source: Issue
                destination: Status
                filter: "source.id IN (SELECT min(i.id) FROM {source:Issue} i WHERE i.status IS NOT NULL GROUP BY lower(btrim(i.status)))"
                attributes: { name: source.status }
              - name: IssueToIssue
                source: Issue
                destination: Issue
                attributes: { priority: "coalesce(source.priority, 0)" }
                relationships:
                  status:
                    mappings: [FirstIssueToStatus]
                    from: "(SELECT min(i.id) FROM {source:Issue} i WHERE lower(btrim(i.status)) = lower(btrim(source.status)))"
            """
        let workaround = try MappingModel.load(yaml: text, file: "workaround.yaml", family: Self.family, policies: PolicyRegistry())
        let data = BugTrackerIssues(count: 200, seed: 9)
        try await TestPostgres.withDatabase { connection in
            var links: [[[String?]]] = []
            for (schema, mappings) in [("by_expression", [workaround]), ("by_key", try Self.mappings())] {
                let plan = try MigrationPlanner(family: Self.family, mappings: mappings).plan(from: "v2", to: "v3")
                try data.insert(intoNewSchema: schema, family: Self.family, on: connection)
                _ = try connection.transaction { try plan.run(inSchema: schema, on: $0, allowDestructive: true) }
                links.append(try connection.rows("SELECT i.id::text, s.name FROM \(schema).issue i LEFT JOIN \(schema).status s ON s.id = i.status_id ORDER BY i.id"))
            }
            #expect(links[0].count == data.rows.count && links[0].contains { $0[1] == nil } && links[0].contains { $0[1] != nil })
            #expect(links[0] == links[1])
        }
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
