import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Computes an ImageAttachment's width and height from its image: the first two bytes.
struct ImageSize: MigrationPolicy {
    func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {
        guard let image = try source.value(Data?.self, "image"), image.count >= 2 else { return }
        try context.update("ImageAttachment", id: source.id, ["width": Int32(image[image.startIndex]), "height": Int32(image[image.startIndex + 1])])
    }
}

/// Trims titles; says nothing about priority.
struct TitleTrimmer: MigrationPolicy {
    var transforms: [String] { ["title"] }

    func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {
        try context.update("Task", id: source.id, ["title": try source.string("title")?.trimmingCharacters(in: .whitespaces)])
    }
}

/// Issue 9's defects 1, 2, 4 and 5: every value a step drops is accounted, listed, and needs consent.
@Suite("Accounting: no value lost without consent")
struct MappingModelAccountTests {
    static var policies: PolicyRegistry {
        var policies = PolicyRegistry()
        policies.register("ImageSize") { ImageSize() }
        policies.register("TitleTrimmer") { TitleTrimmer() }
        return policies
    }

    /// Defect 1: an attribute moving into a new sub-entity through a mapping with a policy keeps
    /// its values (the default attribute mapping carries it), and the plan destroys nothing.
    @Test func anAttributeMovingIntoANewSubEntityKeepsItsValues() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: fixture("ImageAttachments"), policies: Self.policies)
            let plan = try migrator.plan(from: "v3", to: "v4")
            #expect(plan.destructiveChanges.isEmpty, "\(plan.destructiveChanges)")
            #expect(plan.dataDependentLosses.isEmpty, "\(plan.dataDependentLosses)")
            let image = try #require(plan.steps[0].account.entries(table: "attachment", column: "image").first)
            #expect(image.fate == .carried(to: .init(table: "attachment", column: "image")), "\(plan.steps[0].account.entries)")

            let schema = try await migrator.createTenant("pics", version: "v3").schema
            let connection = try Connection(conninfo)
            try connection.fixtureScript("""
                INSERT INTO \(schema).attachment (id, caption, image) VALUES
                    (1, 'cat', '\\x0304ff'::bytea), (2, 'note', NULL), (3, 'dog', '\\x0a0b'::bytea);
                """)
            #expect(try await migrator.migrate(tenant: "pics", to: "v4").outcome == .migrated)
            #expect(try connection.rows("SELECT id::text, entity, caption, encode(image, 'hex'), width::text, height::text FROM \(schema).attachment ORDER BY id") == [
                ["1", "ImageAttachment", "cat", "0304ff", "3", "4"],
                ["2", "Attachment", "note", nil, nil, nil],
                ["3", "ImageAttachment", "dog", "0a0b", "10", "11"],
            ])
            #expect(try await verifyClean(migrator, "pics"))
        }
    }

    /// Defect 2: the down mapping out of a removed sub-entity runs before its rows are deleted,
    /// so it sees them, and its validation fires on a NULL required value.
    @Test func aDownMappingOutOfARemovedSubEntitySeesItsRowsAndValidates() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: fixture("ImageAttachments"), policies: Self.policies)
            let plan = try migrator.plan(from: "v4", to: "v3")
            // width and height are declared lost; image moves up and is kept.
            #expect(Set(plan.destructiveChanges.compactMap(\.column)) == ["width", "height"], "\(plan.destructiveChanges)")
            #expect(!plan.destructiveChanges.contains { $0.column == "image" })

            let connection = try Connection(conninfo)
            var schemas: [String: String] = [:]
            for (tenant, caption) in [("good", "'a photo'"), ("bad", "NULL")] {
                let schema = try await migrator.createTenant(tenant, version: "v4").schema
                schemas[tenant] = schema
                try connection.fixtureScript("""
                    INSERT INTO \(schema).attachment (id, entity, caption, image, width) VALUES
                        (1, 'Attachment', 'plain', NULL, NULL), (2, 'ImageAttachment', \(caption), '\\x0102'::bytea, 1);
                    """)
            }
            let good = try await migrator.rollback(tenant: "good", to: "v3", allowDestructive: true)
            #expect(good.outcome == .migrated)
            #expect(try connection.rows("SELECT id::text, caption, encode(image, 'hex') FROM \(schemas["good"]!).attachment ORDER BY id")
                    == [["1", "plain", nil], ["2", "a photo", "0102"]])
            if let error = await migrationFailure("a NULL caption must fail v3's validation", {
                _ = try await migrator.rollback(tenant: "bad", to: "v3", allowDestructive: true)
            }) {
                let violation = try #require(error.underlying as? ConstraintViolation, "\(error)")
                #expect(violation.rowID == 2 && violation.constraint == "NOT NULL on caption", "\(violation)")
            }
        }
    }

    /// Defect 4: a policy mapping over an entity does not switch off the loss check: the column
    /// it does not declare is listed, and the rollback is refused without consent.
    @Test func aPolicyMappingOverAnEntityThatLosesAnAttributeIsDestructive() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            var migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: fixture("Tasks"), policies: Self.policies)
            migrator.archives = false   // with the archive, the dropped column is archived and needs no consent
            let plan = try migrator.plan(from: "v2", to: "v1")
            #expect(plan.destructiveChanges.map(\.detail) == ["drops column task.priority (attribute Task.priority) and its values"])
            let account = plan.steps[0].account
            #expect(account.entries(table: "task", column: "title").map(\.fate) == [.transformed(by: "policy TitleTrimmer (mapping TaskToTask)")])

            let schema = try await migrator.createTenant("todo", version: "v2").schema
            let connection = try Connection(conninfo)
            try connection.execute(unsafeSQL: "INSERT INTO \(schema).task (title, priority) VALUES ('  ship it ', 1)")
            if let error = await migrationFailure("dropping task.priority needs consent", {
                _ = try await migrator.rollback(tenant: "todo", to: "v1")
            }) {
                #expect(error.refusedChanges?.contains { $0.column == "priority" } == true, "\(error)")
            }
            #expect(try connection.rows("SELECT title, priority::text FROM \(schema).task") == [["  ship it ", "1"]])
            _ = try await migrator.rollback(tenant: "todo", to: "v1", allowDestructive: true)
            #expect(try connection.rows("SELECT title FROM \(schema).task") == [["ship it"]])
        }
    }

    /// Issue 30, item 7: a way down that fills a new `d` from `name` reads `name`, it does not
    /// overwrite it: `name` is carried, nothing of it is lost without the archive (no refusal under
    /// `--no-archive`) and nothing of it is archived.
    @Test func aColumnOnlyReadIsCarriedNotOverwritten() throws {
        let migrator = try TenantMigrator(connectionString: "", familyDirectory: fixture("WayBackTrust"), policies: Self.policies)
        let plan = try migrator.plan(from: "v2", to: "v1")
        let account = plan.steps[0].account
        #expect(account.entries(table: "item", column: "name").map(\.fate) == [.carried(to: .init(table: "item", column: "name"))], "\(account.entries)")
        #expect(!plan.lostChanges(archiving: false).contains { $0.column == "name" }, "\(plan.lostChanges(archiving: false))")
        #expect(!plan.archivedChanges.contains { $0.column == "name" }, "\(plan.archivedChanges)")
    }

    /// `check` shows the destroyed items of mapped pairs too.
    @Test func checkListsWhatMappedPairsDestroy() throws {
        let family = try ModelFamily.load(from: fixture("Tasks"))
        let planner = MigrationPlanner(family: family, mappings: try MappingModel.loadAll(for: family, policies: Self.policies))
        let down = try #require(planner.checkFamily().first { $0.source == "v2" })
        #expect(down.description.contains("mapped (Tasks/Mappings/v2-to-v1.yaml)"), "\(down)")
        #expect(down.description.contains("drops column task.priority"), "\(down)")
    }
}
