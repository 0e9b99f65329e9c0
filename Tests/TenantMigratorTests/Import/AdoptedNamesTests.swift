import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 34: an adopted schema keeps its own names of indexes and constraints (Rails'
/// `index_items_on_code`, a hand-written `qty_not_negative`, `uq_sku`, `owner_fk`), which `verify`
/// accepts (it compares them names aside). A step drops and renames them by the names the model
/// derives (`items_code_idx`, `items_check`); in an adopted tenant it finds them by their
/// definition and addresses the tenant's own names (`AdoptedNames`). Each v2 below migrates the
/// adopted tenant and one made from the model, verifies clean, and rolls back with every value.
@Suite("Adopted schemas' own names of indexes and constraints")
struct AdoptedNamesTests {
    static let rows = [
        "INSERT INTO owners (name) VALUES ('o1'), ('o2')",
        "INSERT INTO items (code, qty, sku, lot, owner_id) VALUES ('a', 1, 's1', 'l1', 1), ('b', 2, 's2', 'l1', 2), ('c', 3, NULL, NULL, NULL)",
    ]

    static let shop = [
        "CREATE SCHEMA shop",
        "CREATE TABLE shop.owners (id bigserial PRIMARY KEY, name text NOT NULL)",
        "CREATE TABLE shop.items (id bigserial PRIMARY KEY, code varchar(20) NOT NULL, qty integer NOT NULL DEFAULT 0, sku text, lot text, owner_id bigint, "
            + "CONSTRAINT qty_not_negative CHECK (qty >= 0), CONSTRAINT qty_or_code CHECK (qty < 1000 OR code <> ''), "
            + "CONSTRAINT uq_sku UNIQUE (sku), CONSTRAINT uq_lot_code UNIQUE (lot, code), "
            + "CONSTRAINT owner_fk FOREIGN KEY (owner_id) REFERENCES shop.owners (id) ON DELETE SET NULL)",
        "CREATE INDEX index_items_on_code ON shop.items (code)",
        "CREATE INDEX index_items_on_owner_id ON shop.items (owner_id)",
        "SET search_path = shop",
    ] + rows + ["RESET search_path"]

    /// The imported model's lines a v2 changes.
    static let codeIndexed = "code: { type: \"character varying(20)\", indexed: true }"
    static let entityCheck = "- \"((qty < 1000) OR ((code)::text <> ''::text))\""
    static let qtyCheck = "      - \"(qty >= 0)\"\n"
    static let skuUnique = "sku: { type: string, optional: true, unique: true }"
    static let composite = "    uniques:\n      - [lot, code]\n"
    static let ownerInverse = "itemses: { destination: Items, toMany: true, inverse: owner }"

    /// The imported v1 with its `qty >= 0` check as the attribute's `check:` (the adopted one is
    /// an entity check to the importer: names aside, the same constraint).
    static func attributeCheck(_ text: String, _ condition: String) -> String {
        text.replacingOccurrences(of: qtyCheck, with: "")
            .replacingOccurrences(of: "qty: { type: int32, default: 0 }", with: "qty: { type: int32, default: 0, check: \"\(condition)\" }")
    }

    /// The v2s, each from the imported v1's text; `v1` rewrites that v1 first, where a case needs.
    static let cases: [(name: String, v1: @Sendable (String) -> String, v2: @Sendable (String) -> String)] = [
        ("a dropped index", { $0 }, { $0.replacingOccurrences(of: codeIndexed, with: "code: { type: \"character varying(20)\" }") }),
        ("a changed attribute check", { attributeCheck($0, "qty >= 0") }, { $0.replacingOccurrences(of: "check: \"qty >= 0\"", with: "check: \"qty >= -1\"") }),
        ("a changed entity check", { $0 }, { $0.replacingOccurrences(of: entityCheck, with: "- \"qty < 2000 OR code <> ''\"") }),
        ("a dropped check", { $0 }, { $0.replacingOccurrences(of: qtyCheck, with: "") }),
        ("a dropped unique", { $0 }, { $0.replacingOccurrences(of: skuUnique, with: "sku: { type: string, optional: true }") }),
        ("a dropped composite unique", { $0 }, { $0.replacingOccurrences(of: composite, with: "") }),
        ("a foreign key's action changed", { $0 }, { $0.replacingOccurrences(of: ownerInverse, with: "itemses: { destination: Items, toMany: true, inverse: owner, deleteRule: cascade }") }),
        ("a foreign key made deferred", { $0 }, {
            $0.replacingOccurrences(of: "owner: { destination: Owners, inverse: itemses }", with: "owner: { destination: Owners, inverse: itemses, deferred: true }")
        }),
        ("an entity renamed", { $0 }, {
            $0.replacingOccurrences(of: "  Items:\n", with: "  Goods:\n    renamingIdentifier: Items\n")
                .replacingOccurrences(of: "destination: Items", with: "destination: Goods")
        }),
    ]

    /// Imports the shop schema as v1 (through `v1`), makes v2 with `v2`, adopts the schema and makes
    /// a tenant from v1 with the same rows. Each tenant migrates to v2, verifies clean, rolls back
    /// to v1 with the catalog (names aside), every value and the sequences as they were, and verifies clean.
    @Test(arguments: cases.indices)
    func aV2ThatAddressesAdoptedNamesMigratesBothTenantsAndRollsBack(index: Int) async throws {
        let change = Self.cases[index]
        try await TestPostgres.withDatabase { connection in
            for statement in Self.shop { try connection.fixtureScript(statement) }
            let imported = try SchemaImport.read(schema: "shop", versionName: "v1", on: connection).version.yamlText()
            let v1Text = change.v1(imported), v2Text = change.v2(v1Text)
            #expect(v2Text != v1Text, "\(change.name): the imported model: \(imported)")
            let v1 = try ModelVersion(name: "v1", yaml: v1Text, file: "v1.yaml")
            let family = try ModelFamily(name: "Shop", versions: [v1, try ModelVersion(name: "v2", yaml: v2Text, file: "v2.yaml")])
            let adopted = try AdoptedSchema("shop", family: family, on: connection)
            try adopted.expectClean(on: connection)
            let created = try adopted.lifecycle.create(try tenant("created"), version: "v1", on: connection)
            try connection.fixtureScript("SET search_path = \(connection.quoteIdentifier(created.schema));\n" + Self.rows.joined(separator: ";\n") + ";\nRESET search_path")
            for (name, schema) in [("adopted", "shop"), ("created", created.schema)] {
                try Self.migrateAndRollBack(name, schema: schema, adopted: adopted, family: family, on: connection, label: change.name)
            }
        }
    }

    /// Two adopted checks on one column (`qty_not_negative`, `qty_bounded`) and two expression
    /// indexes are told apart by their text: a v2 that changes one check and drops one index
    /// addresses those and leaves the others as they were, and rolls back.
    @Test func objectsOfOneShapeAreToldApartByTheirText() async throws {
        try await TestPostgres.withDatabase { connection in
            for statement in [
                "CREATE SCHEMA shop",
                "CREATE TABLE shop.items (id bigserial PRIMARY KEY, code text NOT NULL, qty integer NOT NULL DEFAULT 0, "
                    + "CONSTRAINT qty_not_negative CHECK (qty >= 0), CONSTRAINT qty_bounded CHECK (qty < 1000000))",
                "CREATE INDEX items_lower_code ON shop.items (lower(code))",
                "CREATE INDEX items_upper_code ON shop.items (upper(code))",
                "INSERT INTO shop.items (code, qty) VALUES ('a', 1), ('B', 2)",
            ] { try connection.fixtureScript(statement) }
            let v1 = try SchemaImport.read(schema: "shop", versionName: "v1", on: connection).version
            let v1Text = v1.yamlText()
            let upper = try #require(v1Text.split(separator: "\n").first { $0.contains("upper(code)") }, "\(v1Text)")
            let v2Text = v1Text.replacingOccurrences(of: "(qty < 1000000)", with: "(qty < 2000000)").replacingOccurrences(of: upper + "\n", with: "")
            #expect(v2Text.components(separatedBy: "\n").count == v1Text.components(separatedBy: "\n").count - 1, "\(v1Text)")
            let family = try ModelFamily(name: "Shop", versions: [v1, try ModelVersion(name: "v2", yaml: v2Text, file: "v2.yaml")])
            let adopted = try AdoptedSchema("shop", family: family, on: connection)
            try adopted.expectClean(on: connection)
            try Self.migrateAndRollBack("adopted", schema: "shop", adopted: adopted, family: family, on: connection) { () throws in
                // The other check and index kept their names.
                #expect(try connection.column("SELECT conname::text FROM pg_constraint WHERE connamespace = 'shop'::regnamespace AND contype = 'c' ORDER BY 1",
                                              as: String.self).contains("qty_not_negative"))
                #expect(try connection.column("SELECT indexname::text FROM pg_indexes WHERE schemaname = 'shop' ORDER BY 1", as: String.self)
                    .contains("items_lower_code"))
            }
        }
    }

    /// An adopted object the step addresses that is gone (dropped by hand after the adoption) fails
    /// the step before it changes anything, naming the tenant's schema, the table, the object and 42704.
    @Test func anAddressedObjectThatIsGoneFailsTheStepNamingIt() async throws {
        try await TestPostgres.withDatabase { connection in
            for statement in Self.shop { try connection.fixtureScript(statement) }
            let v1 = try SchemaImport.read(schema: "shop", versionName: "v1", on: connection).version
            let v2Text = v1.yamlText().replacingOccurrences(of: Self.codeIndexed, with: "code: { type: \"character varying(20)\" }")
            let family = try ModelFamily(name: "Shop", versions: [v1, try ModelVersion(name: "v2", yaml: v2Text, file: "v2.yaml")])
            let adopted = try AdoptedSchema("shop", family: family, on: connection)
            try connection.fixtureScript("DROP INDEX shop.index_items_on_code")
            let shapeBefore = try connection.keyedCatalogShape(of: "shop")
            let runner = TenantExecutor(catalog: adopted.catalog, planner: MigrationPlanner(family: family))
            let error = #expect(throws: (any Error).self) { try runner.migrate(try tenant("adopted"), .migrate(to: "v2"), on: connection) }
            let text = String(describing: error)
            #expect(text.contains("shop") && text.contains("items") && text.contains("items_code_idx") && text.contains("42704"), "\(text)")
            #expect(try connection.keyedCatalogShape(of: "shop") == shapeBefore)
        }
    }

    /// Rails' fixture: adopted, then a v2 drops the partial index Rails named
    /// `index_checkouts_on_due_on` and makes a foreign key Rails named `fk_rails_…` cascade; it migrates, verifies clean and rolls back exactly.
    @Test func aV2OfTheRailsFixtureAddressesRailsNames() async throws {
        try await TestPostgres.withDatabase { connection in
            let fixture = try FrameworkSchemaImportTests.fixture("rails")
            try connection.fixtureScript(fixture)
            let v1 = try SchemaImport.read(schema: "rails_app", versionName: "v1", on: connection).version
            let v1Text = v1.yamlText()
            var v2Text = v1Text
            let partial = try #require(v1Text.split(separator: "\n").first { $0.contains("returned_at IS NULL") }, "\(v1Text)")
            v2Text = v2Text.replacingOccurrences(of: "    indexes:\n" + String(partial) + "\n", with: "")
            let volumes = try #require(v1Text.split(separator: "\n").first { $0.contains("destination: Volumes") && $0.contains("toMany: true") }, "\(v1Text)")
            v2Text = v2Text.replacingOccurrences(of: volumes, with: volumes.replacingOccurrences(of: "deleteRule: noAction", with: "deleteRule: cascade"))
            #expect(v2Text != v1Text)
            let family = try ModelFamily(name: "Rails", versions: [v1, try ModelVersion(name: "v2", yaml: v2Text, file: "v2.yaml")])
            let adopted = try AdoptedSchema("rails_app", family: family, on: connection)
            try adopted.expectClean(on: connection)
            try Self.migrateAndRollBack("adopted", schema: "rails_app", adopted: adopted, family: family, on: connection, label: "rails")
        }
    }

    /// Migrates tenant `name` (in `schema`) to v2 and expects it clean (then runs `atV2`), rolls it
    /// back to v1 and expects its catalog (names aside), every value and its sequences as they were,
    /// and clean again.
    static func migrateAndRollBack(
        _ name: String, schema: String, adopted: AdoptedSchema, family: ModelFamily, on connection: Connection, label: String = "",
        atV2: () throws -> Void = {}, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws {
        let shapeBefore = try connection.keyedCatalogShape(of: schema), dataBefore = try connection.userData(of: schema)
        let sequencesBefore = try connection.sequenceValues(of: schema)
        let runner = TenantExecutor(catalog: adopted.catalog, planner: MigrationPlanner(family: family))
        let up = try runner.migrate(try tenant(name), .migrate(to: "v2"), on: connection)
        #expect(up.outcome == .migrated, "\(label), \(name): \(up)", sourceLocation: sourceLocation)
        try adopted.expectClean(name, on: connection, sourceLocation: sourceLocation)
        try atV2()
        let down = try runner.migrate(try tenant(name), .rollback(to: "v1"), on: connection)
        #expect(down.outcome == .migrated, "\(label), \(name): \(down)", sourceLocation: sourceLocation)
        #expect(try connection.keyedCatalogShape(of: schema) == shapeBefore, "\(label), \(name)", sourceLocation: sourceLocation)
        #expect(try connection.userData(of: schema) == dataBefore, "\(label), \(name)", sourceLocation: sourceLocation)
        #expect(try connection.sequenceValues(of: schema) == sequencesBefore, "\(label), \(name)", sourceLocation: sourceLocation)
        try adopted.expectClean(name, on: connection, sourceLocation: sourceLocation)
    }
}
