import EntityModel
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 34: the options of a key's own sequence (an identity's, a `serial`'s) between versions: a
/// change is inferred in the catalog only (`ALTER TABLE … ALTER COLUMN id SET …`, `ALTER SEQUENCE
/// "<table>_id_seq" …`), its way back restores the old options, the sequence's position is never
/// moved back, bounds that would leave the position outside are refused naming it, and `verify`
/// names a drifted identity by its column.
@Suite("A key's sequence options between versions")
struct InferredChangesKeySequenceTests {
    static func version(account: String, ticket: String) -> String {
        """
        entities:
          Account:
            key: { type: serial\(account) }
            attributes:
              name: { type: string, optional: true }
          Ticket:
            key: { type: integer, identity: byDefault\(ticket) }
            attributes:
              title: { type: string, optional: true }
        """
    }

    static func family() throws -> ModelFamily {
        try ModelFamily(name: "KeySeq", versions: [
            ("v1", version(account: "", ticket: "")),
            ("v2", version(account: ", start: 7, increment: 5", ticket: ", start: 100, increment: 10, maxValue: 100000")),
            ("v3", version(account: ", start: 7, increment: 5", ticket: ", start: 1, increment: 10, maxValue: 10")),
        ].map { try ModelVersion(name: $0.0, yaml: $0.1, file: "KeySeq/\($0.0).yaml") })
    }

    @Test func theChangeIsInferredInTheCatalogOnlyEachWay() throws {
        let planner = MigrationPlanner(family: try Self.family())
        let up = try planner.plan(from: "v1", to: "v2").steps.flatMap { $0.describe(inSchema: "s") }
        #expect(Set(up) == [
            #"ALTER SEQUENCE "s"."account_id_seq" START WITH 7 INCREMENT BY 5"#,
            #"ALTER TABLE "s"."ticket" ALTER COLUMN "id" SET START WITH 100 SET INCREMENT BY 10 SET MAXVALUE 100000"#,
        ], "\(up)")
        #expect(up.count == 2)
        let down = try planner.plan(from: "v2", to: "v1").steps.flatMap { $0.describe(inSchema: "s") }
        #expect(Set(down) == [
            #"ALTER SEQUENCE "s"."account_id_seq" START WITH 1 INCREMENT BY 1"#,
            #"ALTER TABLE "s"."ticket" ALTER COLUMN "id" SET START WITH 1 SET INCREMENT BY 1 SET NO MAXVALUE"#,
        ], "\(down)")
        #expect(try planner.plan(from: "v1", to: "v2").steps.allSatisfy { $0.destructiveChanges.isEmpty })
    }

    @Test func aTenantMigratesTheOptionsUpAndBackKeepingItsPositions() async throws {
        try await TestPostgres.withDatabase { connection in
            let tenant = try CatalogTenant(of: try Self.family(), on: connection)
            let schema = tenant.schema
            func settings(_ sequence: String) throws -> String? {
                try connection.column("""
                    SELECT start_value || ' ' || increment_by || ' ' || max_value FROM pg_sequences WHERE schemaname = $1 AND sequencename = $2
                    """, [schema, sequence], as: String.self).first
            }
            func next(_ table: String) throws -> Int64 {
                try connection.scalar("INSERT INTO \(schema).\(table) DEFAULT VALUES RETURNING id", as: Int64.self)
            }
            for _ in 1...3 { _ = try next("account"); _ = try next("ticket") }
            #expect(try settings("ticket_id_seq") == "1 1 2147483647")

            // Drift at v1: verify names the identity's column and both option texts.
            try connection.fixtureScript("ALTER TABLE \(schema).ticket ALTER COLUMN id SET INCREMENT BY 3")
            let drifted = try tenant.verify(on: connection).differences.map(\.description)
            #expect(drifted == ["table ticket: the identity sequence of column id is START WITH 1 INCREMENT BY 3, expected START WITH 1 INCREMENT BY 1"],
                    "\(drifted)")
            try connection.fixtureScript("ALTER TABLE \(schema).ticket ALTER COLUMN id SET INCREMENT BY 1")
            #expect(try tenant.verify(on: connection).isClean)

            let up = try tenant.migrate(.migrate(to: "v2"), on: connection)
            #expect(up.outcome == .migrated, "\(up)")
            #expect(try settings("account_id_seq") == "7 5 2147483647")
            #expect(try settings("ticket_id_seq") == "100 10 100000")
            #expect(try tenant.verify(on: connection).isClean)
            // The positions are kept: the next values follow the last drawn by the new increment.
            #expect(try next("account") == 8)
            #expect(try next("ticket") == 13)

            // v3's maximum 10 is below the identity's position, 13: refused before anything changed, naming both.
            do {
                let refused = try tenant.migrate(.migrate(to: "v3"), on: connection)
                Issue.record("migrated: \(refused)")
            } catch {
                let text = "\(error)"
                #expect(text.contains("ticket_id_seq") && text.contains("position 13") && text.contains("maxValue 10") && text.contains("22023"), "\(text)")
            }
            #expect(try settings("ticket_id_seq") == "100 10 100000")

            let down = try tenant.migrate(.rollback(to: "v1"), on: connection)
            #expect(down.outcome == .migrated, "\(down)")
            #expect(try settings("account_id_seq") == "1 1 2147483647")
            #expect(try settings("ticket_id_seq") == "1 1 2147483647")
            #expect(try tenant.verify(on: connection).isClean)
            // Never moved back: the next values follow the last ones drawn.
            #expect(try next("account") == 9)
            #expect(try next("ticket") == 14)
        }
    }

    @Test func aNewTenantDrawsFromTheStart() async throws {
        try await TestPostgres.withDatabase { connection in
            let tenant = try CatalogTenant(of: try Self.family(), at: "v2", on: connection)
            let drawn = try (1...3).map { _ in
                try connection.scalar("INSERT INTO \(tenant.schema).account DEFAULT VALUES RETURNING id", as: Int64.self)
            }
            let tickets = try (1...3).map { _ in
                try connection.scalar("INSERT INTO \(tenant.schema).ticket DEFAULT VALUES RETURNING id", as: Int64.self)
            }
            #expect(drawn == [7, 12, 17])
            #expect(tickets == [100, 110, 120])
            #expect(try tenant.verify(on: connection).isClean)
        }
    }
}
