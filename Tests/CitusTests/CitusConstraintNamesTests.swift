import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing
import TypedSQL

/// An entity renamed on Citus. Citus refuses `ALTER TABLE … RENAME CONSTRAINT` on a distributed
/// table (0A000), so a step that renamed a table failed there with its foreign keys' and checks'
/// renames. A primary key or unique constraint is renamed through its index (which Citus allows);
/// a foreign key or check keeps its name, which `plan` says, `verify` accepts (names aside) and a
/// later step that changes it by the model's name finds by its definition.
extension CitusTests {
    @Test(arguments: [OnlineMode.off, .on])
    func onCitusARenamedEntityKeepsItsForeignKeysAndChecksNamesAndLaterStepsFindThem(_ online: OnlineMode) async throws {
        try await CitusFixture.with { fixture in
            try await Self.withFamily(fixture, "Names", versions: RenamedConstraintsFamily.versions) { migrator in
                let tenant = fixture.names(1, "nm")[0], schema = "tenant_" + tenant
                let connection = fixture.connection
                _ = try await migrator.createTenant(tenant, version: "v1")
                try RenamedConstraintsFamily.insertRows(into: schema, on: connection)
                let before = try RenamedConstraintsFamily.values(in: schema, on: connection)

                let plan = try await migrator.planDocument(tenant: tenant, to: "v2")
                #expect(plan.keptConstraintNames?.count == 2, "\(String(describing: plan.keptConstraintNames))")
                #expect(plan.keptConstraintNames?.contains { $0.contains("novel_writer_id_fkey") && $0.contains("book_author_id_fkey") } == true)
                let json = String(decoding: try JSONEncoder().encode(plan), as: UTF8.self)
                #expect(json.contains("\"keptConstraintNames\":[") && json.contains("\"onlineLayout\":\"tenant-schema\""), "\(json)")
                let statements = plan.sections.flatMap(\.statements)
                #expect(!statements.contains { $0.contains("RENAME CONSTRAINT") }, "\(statements)")
                #expect(statements.contains { $0.contains("ALTER INDEX") && $0.contains("\"novel_pkey\" RENAME TO \"book_pkey\"") }, "\(statements)")

                let up = try await migrator.migrate(tenant: tenant, MigrationRequest(.move, to: "v2", online: online))
                #expect(up.outcome == .migrated, "\(up)")
                #expect(try RenamedConstraintsFamily.constraints(in: schema, on: connection) == RenamedConstraintsFamily.keptAtV2)
                #expect(try await migrator.verify(tenants: [tenant]).allSatisfy(\.isClean))

                // v3 changes the check and the foreign key the model names book_title_check and book_author_id_fkey.
                let further = try await migrator.migrate(tenant: tenant, MigrationRequest(.move, to: "v3", online: online))
                #expect(further.outcome == .migrated, "\(further)")
                #expect(try await migrator.verify(tenants: [tenant]).allSatisfy(\.isClean))
                #expect(try connection.scalar("SELECT confdeltype::text FROM pg_catalog.pg_constraint WHERE connamespace = $1::regnamespace AND contype = 'f'",
                                              [schema], as: String.self) == "c")

                let down = try await migrator.migrate(tenant: tenant, MigrationRequest(.move, to: "v1", online: online))
                #expect(down.outcome == .migrated, "\(down)")
                #expect(try await migrator.verify(tenants: [tenant]).allSatisfy(\.isClean))
                #expect(try RenamedConstraintsFamily.values(in: schema, on: connection) == before)
                #expect(try fixture.isDistributed(schema))
            }
        }
    }
}
