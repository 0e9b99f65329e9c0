import EntityModel
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 34: a sequence the way up removes keeps its position in the archive, and the way down
/// makes it again where it stood, so that rows the archive gives back and rows the app adds next
/// do not get one id twice. By single steps and by a fused one.
@Suite("A removed sequence's position in the archive")
struct SequencePositionArchiveTests {
    static let part = """
          Part:
            attributes:
              name: { type: string, optional: true }

        """
    static let ticket = """
          Ticket:
            key: { type: bigint, defaultExpression: "nextval('ticket_seq'::regclass)" }
            attributes:
              subject: { type: string }

        """
    static let v1 = "entities:\n" + part + ticket + "sequences:\n  ticket_seq: { increment: 10 }\n"
    static let v2 = "entities:\n" + part
    static let v3 = "entities:\n" + part.replacingOccurrences(of: "      name:", with: "      label: { type: string, optional: true }\n      name:")

    static func family() throws -> ModelFamily {
        try ModelFamily(name: "Tickets", versions: [("v1", v1), ("v2", v2), ("v3", v3)].map { try ModelVersion(name: $0.0, yaml: $0.1, file: "Tickets/\($0.0).yaml") })
    }

    @Test func theWayUpNoLongerLosesThePosition() throws {
        let plan = try MigrationPlanner(family: try Self.family()).plan(from: "v1", to: "v2")
        #expect(plan.lostChanges(archiving: true).isEmpty, "\(plan.lostChanges(archiving: true))")
        #expect(plan.archivedChanges.contains { $0.detail.contains("ticket_seq") }, "\(plan.archivedChanges)")
        #expect(!plan.lostChanges(archiving: false).isEmpty)
    }

    @Test(arguments: [false, true])
    func theWayDownMakesTheSequenceAgainWhereItStood(fused: Bool) async throws {
        try await TestPostgres.withDatabase { connection in
            let family = try Self.family()
            let catalog = TenantCatalog()
            try catalog.install(on: connection)
            let lifecycle = TenantLifecycle(catalog: catalog, family: family)
            let schema = try lifecycle.create(try TenantName("acme"), version: "v1", on: connection).schema
            func newTicket() throws -> Int64 {
                try connection.scalar("INSERT INTO \(schema).ticket (subject) VALUES ('t') RETURNING id", as: Int64.self)
            }
            #expect(try [newTicket(), newTicket(), newTicket()] == [1, 11, 21])
            // The app deleted the last one: its id is not given again either.
            try connection.fixtureScript("DELETE FROM \(schema).ticket WHERE id = 21")
            let planner = MigrationPlanner(family: family)
            let top = fused ? "v3" : "v2"
            #expect(try planner.plan(from: "v1", to: top).steps.count == 1)
            let runner = TenantExecutor(catalog: catalog, planner: planner)
            // (Consent is the plan test's subject: this one is about the ids.)
            let up = try runner.migrate(try TenantName("acme"), .migrate(to: top, allowDestructive: true), on: connection)
            #expect(up.outcome == .migrated, "\(up)")
            #expect(try connection.scalar("SELECT count(*) FROM pg_class WHERE relname = 'ticket_seq' AND relnamespace = $1::regnamespace", [schema], as: Int64.self) == 0)
            let down = try runner.migrate(try TenantName("acme"), .rollback(to: "v1"), on: connection)
            #expect(down.outcome == .migrated, "\(down)")
            #expect(try connection.column("SELECT id FROM \(schema).ticket ORDER BY id", as: Int64.self) == [1, 11])
            #expect(try newTicket() == 31)
            #expect(try lifecycle.verify(try TenantName("acme"), on: connection).isClean)
        }
    }
}
