import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// On Citus, as on PostgreSQL (OnlineRunJoinTableArchiveTests): the links the app adds, removes and
/// moves in a join table a step drops, while an online run catches up, are archived as offline
/// (``DroppedJoinTableFamily``), and the way down gives back each link the app left.
extension CitusTests {
    @Test func onCitusLinksAddedAndRemovedDuringTheRunComeBack() async throws {
        typealias Family = DroppedJoinTableFamily
        try await CitusFixture.with { fixture in
            try await Self.withFamily(fixture, "Shelf", versions: Family.versions) { migrator in
                let tenant = fixture.names(1, "links")[0], schema = "tenant_" + tenant
                let connection = fixture.connection
                _ = try await migrator.createTenant(tenant, version: "v1")
                for statement in Family.seed(schema) { try connection.execute(unsafeSQL: statement) }
                let written = Locked(false)
                let online = fixture.writingAtCatchUp(migrator, Family.catchUpWrites, inSchema: schema, batchRows: 2, written: written)
                let up = try await online.migrate(tenant: tenant, MigrationRequest(.move, to: "v2", allowDestructive: true, online: .on))
                #expect(up.outcome == .migrated, "\(up.error ?? "")")
                #expect(up.online?.mode == "shadow", "\(String(describing: up.online))")
                #expect(written.value, "the app wrote during catch-up")
                #expect(try connection.column(String(format: Family.entries, schema), as: String.self) == Family.expectedEntries)

                let down = try await migrator.migrate(tenant: tenant, MigrationRequest(.move, to: "v1", allowDestructive: true))
                #expect(down.outcome == .migrated, "\(down.error ?? "")")
                #expect(try connection.column(String(format: Family.links, schema), as: String.self) == Family.expectedLinks)
            }
        }
    }
}
