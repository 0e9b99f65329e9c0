import EntityModel
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// A step as it runs on a server that cannot rename a foreign key or check (Citus): without those
/// renames (`MigrationStep.keepingConstraintNames()`). On plain PostgreSQL, so that CI runs it
/// without Citus: the tenant keeps the check's and foreign key's v1 names at v2, verifies clean,
/// and the next steps, which change both by the names v2 derives, find them by their definition.
@Suite("Steps that keep foreign keys' and checks' names")
struct StepProgramKeptConstraintNamesTests {
    @Test func theRenamesOfForeignKeysAndChecksAreLeftOutAndNamed() throws {
        let step = try #require(try MigrationPlanner(family: RenamedConstraintsFamily.family()).plan(from: "v1", to: "v2").steps.first)
        #expect(step.keptConstraintNames.sorted() == [
            "step v1 → v2: inferred keeps book's constraint novel_title_check, which the model names book_title_check",
            "step v1 → v2: inferred keeps book's constraint novel_writer_id_fkey, which the model names book_author_id_fkey",
        ], "\(step.keptConstraintNames)")
        let all = step.describe(inSchema: "s"), kept = step.keepingConstraintNames().describe(inSchema: "s")
        #expect(all.filter { $0.contains("RENAME CONSTRAINT") }.count == 2, "\(all)")
        #expect(kept == all.filter { !$0.contains("RENAME CONSTRAINT") }, "\(kept)")
        // A primary key and a unique constraint are renamed through their indexes.
        #expect(kept.contains("ALTER INDEX \"s\".\"novel_pkey\" RENAME TO \"book_pkey\""), "\(kept)")
        #expect(kept.contains("ALTER INDEX \"s\".\"novel_code_key\" RENAME TO \"book_code_key\""), "\(kept)")
    }

    @Test func aTenantThatKeptThemMatchesItsVersionAndLaterStepsFindThemByDefinition() async throws {
        try await TestPostgres.withDatabase { connection in
            let family = try RenamedConstraintsFamily.family()
            let tenant = try CatalogTenant(of: family, on: connection), schema = tenant.schema
            try RenamedConstraintsFamily.insertRows(into: schema, on: connection)
            let before = try RenamedConstraintsFamily.values(in: schema, on: connection)
            let planner = MigrationPlanner(family: family)
            func differences(from version: String) throws -> [SchemaDifference] {
                try SchemaSnapshot.read(schema: schema, on: connection).differences(from: SchemaSnapshot.expected(for: try #require(family.version(named: version)), on: connection))
            }

            let step = try #require(try planner.plan(from: "v1", to: "v2").steps.first)
            try connection.transaction { _ = try step.keepingConstraintNames().run(inSchema: schema, on: $0) }
            #expect(try RenamedConstraintsFamily.constraints(in: schema, on: connection) == RenamedConstraintsFamily.keptAtV2)
            #expect(try differences(from: "v2").isEmpty)

            // v2 → v3 changes the check and the foreign key by the names v2 derives; the tenant has v1's.
            try connection.transaction { _ = try planner.plan(from: "v2", to: "v3").run(inSchema: schema, on: $0) }
            #expect(try differences(from: "v3").isEmpty)
            #expect(try connection.scalar("SELECT confdeltype::text FROM pg_catalog.pg_constraint WHERE connamespace = $1::regnamespace AND contype = 'f'",
                                          [schema], as: String.self) == "c")
            try connection.transaction { _ = try planner.plan(from: "v3", to: "v1").run(inSchema: schema, on: $0) }
            #expect(try differences(from: "v1").isEmpty)
            #expect(try RenamedConstraintsFamily.values(in: schema, on: connection) == before)
        }
    }
}
