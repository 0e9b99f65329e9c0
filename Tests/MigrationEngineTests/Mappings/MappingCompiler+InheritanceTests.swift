import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Seed 001's Note → Attachment: a filtered mapping into another entity's table, attribute
/// expressions over key paths (through the to-one folder), and a relationship mapping back to the
/// in-place NoteToNote — all declarative, compiled to INSERT … SELECT and UPDATE … FROM.
@Suite("Notes: Note → Attachment")
struct MappingCompilerInheritanceTests {
    @Test func notesWithAnImageGetOneAttachmentLinkedToTheirNote() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            // Stage hooks run in the tenant's transaction, before and after the step.
            let log = Locked<[String]>([])
            var policies = PolicyRegistry()
            policies.registerHooks(family: "Notes", from: "v1", to: "v2", StepHooks(
                willMigrate: { connection, schema in
                    let notes = try connection.execute(unsafeSQL: "SELECT count(*)::int FROM \(connection.quoteIdentifier(schema)).note").first!.decode(Int.self, at: 0)
                    log.withLock { $0.append("will \(schema) \(notes) notes") }
                },
                didMigrate: { connection, schema in
                    let attachments = try connection.execute(unsafeSQL: "SELECT count(*)::int FROM \(connection.quoteIdentifier(schema)).attachment").first!.decode(Int.self, at: 0)
                    log.withLock { $0.append("did \(schema) \(attachments) attachments") }
                }
            ))
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: fixture("Notes"), policies: policies)
            let schema = try await migrator.createTenant("notes", version: "v1").schema
            let connection = try Connection(conninfo)
            try connection.fixtureScript("""
                INSERT INTO \(schema).folder (id, name) VALUES (1, 'Work'), (2, 'Home');
                INSERT INTO \(schema).note (id, title, body, image, folder_id) VALUES
                    (10, 'Plan', 'the plan', '\\x0102030405'::bytea, 1),
                    (11, 'Idea', NULL, NULL, 1),
                    (12, 'Cat', 'a cat', '\\xcafe'::bytea, NULL),
                    (13, 'Receipt', NULL, '\\x00'::bytea, 2),
                    (14, 'List', 'milk', NULL, NULL);
                SELECT setval(pg_get_serial_sequence('\(schema).note', 'id'), 14);
                """)
            let notesBefore = try connection.rows("SELECT id::text, title, body, folder_id::text FROM \(schema).note ORDER BY id")

            let result = try await migrator.migrate(tenant: "notes", to: "v2")
            #expect(result.outcome == .migrated)
            #expect(log.value == ["will \(schema) 5 notes", "did \(schema) 3 attachments"])

            // One attachment per note with an image, linked to that note, with its caption and width.
            let attachments = try connection.rows("""
                SELECT a.note_id::text, encode(a.image, 'hex'), a.caption, a.width::text
                FROM \(schema).attachment a ORDER BY a.note_id
                """)
            #expect(attachments == [
                ["10", "0102030405", "Work: Plan", "5"],
                ["12", "cafe", "Cat", "2"],
                ["13", "00", "Home: Receipt", "1"],
            ])
            // Ids follow the mapping's rule: source id + offset (the table was empty: offset 0).
            #expect(try connection.rows("SELECT id::text FROM \(schema).attachment ORDER BY id") == [["10"], ["12"], ["13"]])
            // New attachments get ids past the migrated ones.
            let next = try connection.scalar("INSERT INTO \(schema).attachment (image, caption, note_id) VALUES ('\\x01', 'new', 11) RETURNING id", as: Int64.self)
            #expect(next == 14)
            // Notes are untouched but for the image column, which is gone.
            #expect(try connection.rows("SELECT id::text, title, body, folder_id::text FROM \(schema).note ORDER BY id") == notesBefore)
            #expect(try connection.scalar("SELECT count(*)::int FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'note' AND column_name = 'image'", [schema], as: Int.self) == 0)
            // The required to-one was set by pass 2 and is NOT NULL once validated.
            #expect(try connection.scalar("SELECT is_nullable::text FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'attachment' AND column_name = 'note_id'", [schema], as: String.self) == "NO")
            #expect(try await verifyClean(migrator, "notes"))
        }
    }

    @Test func thePlanShowsTheCompiledSQL() async throws {
        let family = try ModelFamily.load(from: fixture("Notes"))
        let mapping = try MappingModel.loadAll(for: family, policies: PolicyRegistry())
        #expect(mapping.count == 1)
        let planner = MigrationPlanner(family: family, mappings: mapping)
        let plan = try planner.plan(from: "v1", to: "v2")
        #expect(plan.destructiveChanges.isEmpty, "note.image is carried over by the mapping: \(plan.destructiveChanges)")
        try await TestPostgres.withDatabase { connection in
            let sql = plan.describe(inSchema: "t", quoting: connection).flatMap(\.statements)
            let insert = try #require(sql.first { $0.hasPrefix("INSERT INTO \"t\".\"attachment\"") })
            #expect(insert.contains("LEFT JOIN \"t\".\"folder\" AS source_folder ON source_folder.id = source.\"folder_id\""))
            #expect(insert.contains("WHERE (image IS NOT NULL)"))
            #expect(insert.contains("coalesce(source_folder.\"name\" || ': ', '') || source.\"title\""))
            let link = try #require(sql.first { $0.hasPrefix("UPDATE \"t\".\"attachment\" AS target SET \"note_id\"") })
            #expect(link.contains("source.id + pg_catalog.current_setting('tenant_migrate.offset_notetoattachment')::bigint AS id"))
            // Constraints of the new table come after the data, in the validation stage.
            let notNull = try #require(sql.firstIndex { $0.contains("ALTER COLUMN \"note_id\" SET NOT NULL") })
            #expect(notNull > sql.firstIndex(of: link)!)
        }
    }
}
