import EntityModel
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 34: the sequences a version lists (`sequences:`) change between versions: one added is
/// created before the tables, one changed (type, start, increment) is altered in the catalog with
/// its position kept, one removed is dropped after the tables, its position kept by the archive
/// (without the archive, the plan names it as lost and asks for consent).
@Suite("Sequences that change between versions")
struct InferredChangesSequenceTests {
    /// The one entity of both versions, keyed by `part_seq`.
    static let part = partKeyedBySequence("bigint")
    static let v1 = part + """
        sequences:
          part_seq: { increment: 50 }
          old_seq: {}
        """
    static let v2 = part + """
        sequences:
          part_seq: { start: 100, increment: 10 }
          new_seq: { type: integer }
        """

    static func family() throws -> ModelFamily {
        try ModelFamily(name: "Seq", versions: [ModelVersion(name: "v1", yaml: v1, file: "Seq/v1.yaml"), ModelVersion(name: "v2", yaml: v2, file: "Seq/v2.yaml")])
    }

    @Test func aSequenceAddedChangedOrRemovedIsPlannedInTheCatalogAndARemovalNeedsConsentWithoutTheArchive() throws {
        let planner = MigrationPlanner(family: try Self.family())
        let up = try planner.plan(from: "v1", to: "v2")
        #expect(up.steps.flatMap { $0.describe(inSchema: "s") } == [
            #"CREATE SEQUENCE "s"."new_seq" AS integer START WITH 1 INCREMENT BY 1"#,
            #"ALTER SEQUENCE "s"."part_seq" START WITH 100 INCREMENT BY 10"#,
            #"DROP SEQUENCE "s"."old_seq""#,
        ])
        // The archive keeps a removed sequence's position (SequencePositionArchiveTests): only without it is the position lost.
        #expect(up.lostChanges(archiving: false).map(\.detail).contains { $0.contains("old_seq") }, "\(up.lostChanges(archiving: false))")
        #expect(up.lostChanges(archiving: true).isEmpty, "\(up.lostChanges(archiving: true))")
        let down = try planner.plan(from: "v2", to: "v1")
        #expect(down.steps.flatMap { $0.describe(inSchema: "s") } == [
            #"CREATE SEQUENCE "s"."old_seq" AS bigint START WITH 1 INCREMENT BY 1"#,
            #"ALTER SEQUENCE "s"."part_seq" START WITH 1 INCREMENT BY 50"#,
            #"DROP SEQUENCE "s"."new_seq""#,
        ])
    }

    /// The sequence's values carry across: the next id after the migration follows the last one
    /// drawn, by the new increment, and back.
    @Test func aTenantMigratesItsSequencesAndBackKeepingTheirPositions() async throws {
        try await TestPostgres.withDatabase { connection in
            let tenant = try CatalogTenant(of: try Self.family(), on: connection)
            let schema = tenant.schema
            func nextPart() throws -> Int64 {
                try connection.scalar("INSERT INTO \(schema).part (name) VALUES ('p') RETURNING id", as: Int64.self)
            }
            func settings(_ sequence: String) throws -> String? {
                try connection.column("SELECT data_type::text || ' ' || start_value || ' ' || increment_by FROM pg_sequences WHERE schemaname = $1 AND sequencename = $2",
                                      [schema, sequence], as: String.self).first
            }
            #expect(try [nextPart(), nextPart()] == [1, 51])
            let up = try tenant.migrate(.migrate(to: "v2", allowDestructive: true), on: connection)
            #expect(up.outcome == .migrated, "\(up)")
            #expect(try settings("part_seq") == "bigint 100 10")
            #expect(try settings("new_seq") == "integer 1 1")
            #expect(try settings("old_seq") == nil)
            #expect(try nextPart() == 61)
            let atV2 = try tenant.verify(on: connection)
            #expect(atV2.isClean, "\(atV2.differences.map(\.description)) \(atV2.foreignObjects)")
            let down = try tenant.migrate(.rollback(to: "v1", allowDestructive: true), on: connection)
            #expect(down.outcome == .migrated, "\(down)")
            #expect(try settings("part_seq") == "bigint 1 50")
            #expect(try settings("old_seq") == "bigint 1 1")
            #expect(try settings("new_seq") == nil)
            #expect(try nextPart() == 111)
            let atV1 = try tenant.verify(on: connection)
            #expect(atV1.isClean, "\(atV1.differences.map(\.description)) \(atV1.foreignObjects)")
        }
    }

    /// A `serial` key's sequence is named after its table (`part_id_seq`): renaming the table
    /// renames the sequence too (catalog only), each way, and verify is clean at both ends.
    @Test func renamingASerialKeyedTableRenamesItsSequence() async throws {
        let v1 = "entities:\n  Part:\n    key: { type: serial }\n    attributes:\n      name: { type: string, optional: true }\n"
        let v2 = v1.replacingOccurrences(of: "  Part:\n", with: "  Part:\n    table: component\n")
        let family = try ModelFamily(name: "Serial", versions: [ModelVersion(name: "v1", yaml: v1, file: "Serial/v1.yaml"), ModelVersion(name: "v2", yaml: v2, file: "Serial/v2.yaml")])
        try await TestPostgres.withDatabase { connection in
            let tenant = try CatalogTenant(of: family, on: connection)
            let schema = tenant.schema
            #expect(try connection.scalar("INSERT INTO \(schema).part (name) VALUES ('a') RETURNING id", as: Int64.self) == 1)
            for (request, table, next) in [(MigrationRequest.migrate(to: "v2"), "component", Int64(2)), (.rollback(to: "v1"), "part", 3)] {
                let outcome = try tenant.migrate(request, on: connection)
                #expect(outcome.outcome == .migrated, "\(outcome)")
                #expect(try connection.scalar("SELECT pg_catalog.pg_get_serial_sequence($1, 'id')", ["\(schema).\(table)"], as: String.self) == "\(schema).\(table)_id_seq")
                #expect(try connection.scalar("INSERT INTO \(schema).\(table) (name) VALUES ('b') RETURNING id", as: Int64.self) == next)
                let report = try tenant.verify(on: connection)
                #expect(report.isClean, "\(table): \(report.differences.map(\.description)) \(report.foreignObjects)")
            }
        }
    }
}
