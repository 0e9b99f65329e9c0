import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// On Citus, as on PostgreSQL (OnlineRunBracedArchiveTests): an online run whose catch-up moves the
/// keys of rows made per key renumbers the links the archive keeps for the dropped column they
/// derive from, and leaves the archived text of a surviving column that starts with `{` as it is
/// (``BracedArchiveFamily``); the way down gives every value back.
extension CitusTests {
    @Test(arguments: BracedArchiveFamily.AppValue.allCases)
    func onCitusKeysMoveAndTheArchivedTextOfASurvivingColumnStays(value: BracedArchiveFamily.AppValue) async throws {
        typealias Family = BracedArchiveFamily
        try await CitusFixture.with { fixture in
            try await Self.withFamily(fixture, "Issues", versions: Family.versions, mappings: Family.mappings) { migrator in
                let tenant = fixture.names(1, "braced")[0], schema = "tenant_" + tenant
                let connection = fixture.connection
                _ = try await migrator.createTenant(tenant, version: "v1")
                for statement in Family.seed(value, schema) { try connection.execute(unsafeSQL: statement) }
                let written = Locked(false)
                let online = fixture.writingAtCatchUp(migrator, Family.catchUpWrites, inSchema: schema, batchRows: 10, written: written)
                let up = try await online.migrate(tenant: tenant, MigrationRequest(.move, to: "v2", allowDestructive: true, online: .on))
                #expect(up.outcome == .migrated)
                #expect(up.online?.mode == "shadow", "\(String(describing: up.online))")
                #expect(written.value, "the app wrote during catch-up")
                #expect(try connection.column(String(format: Family.statuses, schema), as: String.self) == Family.expectedStatuses)
                let entries = try connection.column(String(format: Family.entries, schema), as: String.self)
                #expect(entries == [value.entry])
                let links = try connection.column(String(format: Family.links, schema), as: String.self)
                #expect(links == Family.expectedLinks)

                let down = try await migrator.migrate(tenant: tenant, MigrationRequest(.move, to: "v1", allowDestructive: true))
                #expect(down.outcome == .migrated)
                let issues = try connection.column(String(format: Family.issues, schema), as: String.self)
                #expect(issues == Family.expectedIssues(value))
                let superseded = try connection.column(String(format: Family.superseded, schema), as: String.self)
                #expect(superseded.isEmpty, "superseded entries")
            }
        }
    }
}
