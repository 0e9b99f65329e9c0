import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Issue 34: keys as they are, online. A serial key's sequence is the table's own, as an
/// identity's is: after the cutover it draws past every id in use, in every table the shadow built.
@Suite("Online runs of keyed entities", .serialized)
struct OnlineRunKeysTests {
    @Test func aSerialKeysSequenceDrawsPastEveryIDAfterTheCutover() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let directory = PackagePaths.root.appendingPathComponent("Tests/MigrationEngineTests/Fixtures/SerialKeys")
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: directory, logger: .quiet("OnlineKeys"))
            let connection = try Connection(conninfo)
            _ = try await migrator.createTenant("online", version: "v1")
            try connection.fixtureScript("""
                INSERT INTO tenant_online.shelf (label) VALUES ('a'), ('b'), ('c');
                INSERT INTO tenant_online.book (title, shelf_id, pages) VALUES ('x', 1, 10), ('y', 2, NULL)
                """)
            let result = try await migrator.migrate(tenant: "online", MigrationRequest(.move, to: "v2", allowDestructive: true, online: .on))
            #expect(result.outcome == .migrated)
            #expect(result.online != nil && result.online?.mode != "catalog-only", "\(String(describing: result.online))")
            // The next shelf and book take the ids after the last ones in use, not ids taken already.
            #expect(try connection.scalar("INSERT INTO tenant_online.book (title) VALUES ('z') RETURNING id", as: Int64.self) == 3)
            #expect(try connection.scalar("INSERT INTO tenant_online.shelf (label) VALUES ('d') RETURNING id::bigint", as: Int64.self) == 4)
        }
    }

    /// A model's own object that something the model does not know uses, which would keep the old
    /// object after the cutover: the online run is refused before anything is touched, naming the
    /// user, and leaves no run schema; offline, the tenant migrates.
    struct ObjectUsedElsewhere: Sendable, CustomTestStringConvertible {
        let testDescription: String
        /// The family's name and its v1; v2 widens v1's `varchar(40)` to `varchar(80)`.
        let family: (name: String, v1: String)
        /// The tenant's name, and its rows and the object's user outside the model.
        let tenant: (name: String, setup: String)
        /// What the refusal says.
        let refusal: String
        /// A query after the offline migration, and the number it must return.
        let afterOffline: (query: String, expected: Int64)
    }

    static let objectsUsedElsewhere = [
        // Another schema's default that draws from the model's sequence would draw ids the new one
        // gives again; offline, the sequence keeps its current value. (Without it, the model
        // migrates online: OnlineRunSequencesTests.)
        ObjectUsedElsewhere(
            testDescription: "a sequence that another table draws from",
            family: ("Parts", """
                entities:
                  Part:
                    key: { type: bigint, defaultExpression: "nextval('part_seq'::regclass)" }
                    attributes:
                      name: { type: varchar(40), allowsNarrowing: true }
                sequences:
                  part_seq: { increment: 50 }
                """),
            tenant: ("parts", """
                INSERT INTO tenant_parts.part (name) VALUES ('bolt'), ('nut');
                CREATE TABLE public.part_audit (id bigint DEFAULT nextval('tenant_parts.part_seq'::regclass))
                """),
            refusal: "default value for column id of table public.part_audit draws from the sequence part_seq, which the cutover replaces",
            afterOffline: ("INSERT INTO tenant_parts.part (name) VALUES ('washer') RETURNING id", 101)),
        // A function that uses the model's enum type would keep the old type (and go with the
        // retired tables). (Without it, the model migrates online: OnlineRunEnumsTests.)
        ObjectUsedElsewhere(
            testDescription: "an enum type that a function uses",
            family: ("Orders", """
                enums:
                  order_status: [new, paid]
                entities:
                  Order:
                    attributes:
                      status: { type: "enum(order_status)", default: new }
                      note: { type: varchar(40), allowsNarrowing: true, optional: true }
                """),
            tenant: ("shop", """
                INSERT INTO tenant_shop."order" (status, note) VALUES ('paid', 'a'), ('new', NULL);
                CREATE FUNCTION public.is_paid(s tenant_shop.order_status) RETURNS boolean LANGUAGE sql AS $$SELECT s = 'paid'$$
                """),
            refusal: "function public.is_paid(tenant_shop.order_status) uses the enum type order_status, which the cutover replaces",
            afterOffline: ("SELECT count(*) FROM tenant_shop.\"order\" WHERE status = 'paid'", 1)),
    ]

    @Test(arguments: objectsUsedElsewhere)
    func aModelsObjectThatSomethingElseUsesIsRefusedOnline(_ object: ObjectUsedElsewhere) async throws {
        let v1 = object.family.v1
        let v2 = v1.replacingOccurrences(of: "varchar(40), allowsNarrowing: true", with: "varchar(80)")
        try await OnlineFamilyDirectory.withMigrator(object.family.name, versions: [("v1", v1), ("v2", v2)], logger: "OnlineKeys") { migrator, connection, conninfo in
            _ = try await migrator.createTenant(object.tenant.name, version: "v1")
            try connection.fixtureScript(object.tenant.setup)
            await #expect {
                _ = try await migrator.migrate(tenant: object.tenant.name, MigrationRequest(.move, to: "v2", allowDestructive: true, online: .on))
            } throws: { error in
                "\(error)".contains(object.refusal)
            }
            #expect(try connection.tenantVersions()[object.tenant.name]?.version == "v1")
            #expect(try connection.scalar("SELECT count(*)::int FROM pg_catalog.pg_namespace WHERE nspname LIKE '%tm_online%'", as: Int.self) == 0)
            _ = try await migrator.migrate(tenant: object.tenant.name, MigrationRequest(.move, to: "v2", allowDestructive: true))
            #expect(try connection.scalar(object.afterOffline.query, as: Int64.self) == object.afterOffline.expected)
        }
    }

    /// Entities keyed by a uuid, a natural and a composite key with a text column: the change
    /// capture logs rows by their keys' text, so the step (which archives a column of an
    /// integer-keyed entity) migrates online, with the app's writes on each of them, as its
    /// offline twin, and both verify clean (more: OnlineRunTextKeysTests).
    @Test func entitiesKeyedOtherwiseThanByIntegersMigrateOnlineAsOffline() async throws {
        let token = "  Token:\n    key: { type: uuid, defaultExpression: \"gen_random_uuid()\" }\n    attributes:\n      label: { type: varchar(40) }\n"
        let v1 = TextKeysFamily.model([token, TextKeysFamily.country, TextKeysFamily.stock, TextKeysFamily.item(withNote: true)])
        let v2 = v1.replacingOccurrences(of: "      note: { type: string, optional: true }\n", with: "")
            .replacingOccurrences(of: "  Country:\n", with: "  Country:\n    checks:\n      - \"code = upper(code)\"\n")
        try await OnlineFamilyDirectory.withMigrator("Keyed", versions: [("v1", v1), ("v2", v2)], logger: "OnlineKeys") { migrator, connection, conninfo in
            try await OnlineTwins.create(migrator, connection) { connection, schema in
                try connection.fixtureScript("""
                    INSERT INTO \(schema).token (id, label) VALUES ('00000000-0000-4000-8000-000000000001', 'ci'), ('00000000-0000-4000-8000-000000000002', 'ops');
                    INSERT INTO \(schema).country (code, name) VALUES ('DE', 'Germany'), ('FR', 'France');
                    INSERT INTO \(schema).item (title, note) VALUES ('bolt', 'zinc'), ('nut', NULL);
                    INSERT INTO \(schema).stock (item_id, warehouse, quantity) VALUES (1, 'north', 5), (2, 'north', 0), (2, 'south', 7)
                    """)
            }
            try await OnlineTwins.migrate(migrator, conninfo, to: "v2", writes: [
                .copying: ["INSERT INTO S.token (id, label) VALUES ('00000000-0000-4000-8000-0000000000AB', 'new')",
                           "UPDATE S.country SET name = 'Deutschland' WHERE code = 'DE'"],
                .built: ["UPDATE S.stock SET warehouse = 'east' WHERE item_id = 2 AND warehouse = 'south'",
                         "INSERT INTO S.country (code, name) VALUES ('IT', 'Italy')"],
                .catchingUp: ["DELETE FROM S.token WHERE label = 'ci'", "UPDATE S.country SET code = 'FX' WHERE code = 'FR'",
                              "UPDATE S.item SET note = 'steel' WHERE id = 2"],
            ], batchRows: 1)
            #expect(try connection.userData(of: "tenant_online") == connection.userData(of: "tenant_twin"))
            for report in try await migrator.verify(tenants: ["online", "twin"]) {
                #expect(report.isClean, "\(report.tenant): \(report.differences.map(\.description)) \(report.foreignObjects)")
            }
        }
    }
}
