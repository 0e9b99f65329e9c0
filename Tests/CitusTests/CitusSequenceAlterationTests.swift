import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing
import TypedSQL

/// Issue 34 on Citus: a step that changes a sequence a distributed table draws from in place (a
/// key between `serial` and an identity, an identity between `always` and `byDefault`, a key
/// sequence's options, a model sequence a default draws from) meets Citus's 0A000 (`alter table
/// command is currently unsupported`, `Altering a distributed sequence is currently not
/// supported`). The migrator refuses such a plan there before anything runs, offline and online,
/// and `plan` says so; the tenant stays at its version with its rows.
extension CitusTests {
    static let sequencesV1 = """
        entities:
          Book:
            key: { type: bigserial }
            attributes:
              title: { type: string }
          Shelf:
            key: { type: integer, identity: always }
            attributes:
              label: { type: string }
          Ticket:
            attributes:
              number: { type: bigint, defaultExpression: "nextval('ticket_no'::regclass)" }
        sequences:
          ticket_no: {}
        """

    /// Each change in its own v2, with what the refusal names.
    static let sequenceAlterations: [(change: String, v2: String, named: String)] = [
        ("serial → identity", sequencesV1.replacingOccurrences(of: "key: { type: bigserial }", with: "key: { type: bigint, identity: byDefault }"),
         "changes key book.id from serial to byDefault"),
        ("always → byDefault", sequencesV1.replacingOccurrences(of: "identity: always", with: "identity: byDefault"),
         "changes key shelf.id from always to byDefault"),
        ("identity options", sequencesV1.replacingOccurrences(of: "identity: always", with: "identity: always, increment: 5"),
         "changes the options of the sequence of key shelf.id"),
        ("model sequence", sequencesV1.replacingOccurrences(of: "ticket_no: {}", with: "ticket_no: { increment: 10 }"),
         "changes the options of sequence ticket_no, which ticket.number draws from"),
    ]

    @Test(arguments: 0..<4)
    func onCitusAStepThatAltersASequenceInPlaceIsRefusedBeforeItRuns(_ index: Int) async throws {
        let (change, v2, named) = Self.sequenceAlterations[index]
        try await CitusFixture.with { fixture in
            try await Self.withFamily(fixture, "Sequences", versions: [("v1", Self.sequencesV1), ("v2", v2)]) { migrator in
                let tenant = fixture.names(1, "seq")[0], schema = "tenant_" + tenant
                _ = try await migrator.createTenant(tenant, version: "v1")
                try fixture.connection.execute("INSERT INTO \(id: schema).book (title) VALUES ('a'), ('b')", schema: "")
                let document = try await migrator.planDocument(tenant: tenant, to: "v2")
                #expect(document.unsupportedByServer?.contains { $0.contains(named) } == true, "\(change): \(String(describing: document.unsupportedByServer))")
                #expect(String(decoding: try JSONEncoder().encode(document), as: UTF8.self).contains("\"unsupportedByServer\":["), "\(change): in --json")
                for online in [OnlineMode.off, .on] {
                    do {
                        let result = try await migrator.migrate(tenant: tenant, MigrationRequest(.move, to: "v2", online: online))
                        Issue.record("\(change), online \(online): \(result.outcome)")
                    } catch {
                        #expect(SQLState.of(error) == "0A000", "\(change): \(error)")
                        #expect("\(error)".contains("cannot run on Citus") && "\(error)".contains(named), "\(change): \(error)")
                        #expect(!"\(error)".contains("rolled back"), "refused before it ran: \(error)")
                    }
                }
                let version = try fixture.connection.execute("SELECT version FROM \(id: fixture.catalog.schema).\(id: "tenants") WHERE name = \(bind: .text(tenant))", schema: "")
                    .first!.decode(String.self, at: 0)
                #expect(version == "v1")
                let titles = try fixture.connection.execute("SELECT title FROM \(id: schema).book ORDER BY id", schema: "").map { try $0.decode(String.self, at: 0) }
                #expect(titles == ["a", "b"])
            }
        }
    }
}
