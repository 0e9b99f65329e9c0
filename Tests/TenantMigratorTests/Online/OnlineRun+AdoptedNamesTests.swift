import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 34, online: an adopted tenant whose step drops the index its schema named
/// `index_items_on_code` (the model derives `items_code_idx`) migrates online, as the step in
/// place (catalog only) and on a shadow (with a type that rewrites the table), verifies clean,
/// and comes back online with every value.
@Suite("Online runs of adopted tenants' own names", .serialized)
struct OnlineRunAdoptedNamesTests {
    @Test(arguments: [false, true])
    func anAdoptedTenantDropsItsOwnIndexOnline(rewrites: Bool) async throws {
        let imported = try await TestPostgres.withDatabase { connection in
            for statement in AdoptedNamesTests.shop { try connection.fixtureScript(statement) }
            return try SchemaImport.read(schema: "shop", versionName: "v1", on: connection).version.yamlText()
        }
        // (The way back narrows `qty` again: the model allows it.)
        let qty = "qty: { type: int32, default: 0 }"
        let v1Text = rewrites ? imported.replacingOccurrences(of: qty, with: "qty: { type: int32, default: 0, allowsNarrowing: true }") : imported
        var v2Text = v1Text.replacingOccurrences(of: AdoptedNamesTests.codeIndexed, with: "code: { type: \"character varying(20)\" }")
        if rewrites { v2Text = v2Text.replacingOccurrences(of: "type: int32, default: 0, allowsNarrowing", with: "type: int64, default: 0, allowsNarrowing") }
        #expect(v2Text != v1Text)
        try await OnlineFamilyDirectory.withMigrator("AdoptedOnline", versions: [("v1", v1Text), ("v2", v2Text)], logger: "AdoptedOnline") { migrator, connection, _ in
            for statement in AdoptedNamesTests.shop { try connection.fixtureScript(statement) }
            // Every value of each table, whatever the order of its columns (a rollback may put it in model order).
            func values() throws -> [String] {
                try connection.column("SELECT to_jsonb(t)::text FROM shop.items t UNION ALL SELECT to_jsonb(o)::text FROM shop.owners o ORDER BY 1", as: String.self)
            }
            let before = try values()
            _ = try await migrator.adoptTenant("adopted", schema: "shop")
            #expect(try await migrator.verify(tenants: ["adopted"]).allSatisfy(\.isClean))

            let up = try await migrator.migrate(tenant: "adopted", MigrationRequest(.move, to: "v2", online: .on))
            #expect(up.outcome == .migrated, "\(up)")
            #expect(up.online != nil, "\(up)")
            if rewrites { #expect(up.online?.mode != "catalog-only", "\(String(describing: up.online))") }
            #expect(try connection.scalar("SELECT count(*)::int FROM pg_indexes WHERE schemaname = 'shop' AND indexdef LIKE '%(code)'", as: Int.self) == 0)
            #expect(try await migrator.verify(tenants: ["adopted"]).allSatisfy(\.isClean))

            let down = try await migrator.migrate(tenant: "adopted", MigrationRequest(.move, to: "v1", online: .on))
            #expect(down.outcome == .migrated, "\(down)")
            #expect(try await migrator.verify(tenants: ["adopted"]).allSatisfy(\.isClean))
            #expect(try values() == before, "\(String(describing: up.online)) \(String(describing: down.online))")
        }
    }
}

/// An adopted tenant whose two indexes have each other's derived names (`items_qty_idx` on
/// `code`, `items_code_idx` on `qty`) keeps them through an online run on a shadow, as offline:
/// the cutover gives each swapped-in index the tenant's name through a name of its own first
/// (MigrationPlan+AdoptedNames.swift), and verify is clean.
@Suite("Online runs of adopted tenants' swapped names", .serialized)
struct OnlineRunSwappedAdoptedNamesTests {
    static let schema = [
        "CREATE SCHEMA swap",
        "CREATE TABLE swap.items (id bigserial PRIMARY KEY, code varchar(20) NOT NULL, qty integer NOT NULL DEFAULT 0)",
        "CREATE INDEX items_qty_idx ON swap.items (code)",
        "CREATE INDEX items_code_idx ON swap.items (qty)",
        "INSERT INTO swap.items (code, qty) VALUES ('a', 1), ('b', 2), ('c', 3)",
    ]

    @Test func twoIndexesWithEachOthersDerivedNamesKeepThemOnline() async throws {
        let imported = try await TestPostgres.withDatabase { connection in
            for statement in Self.schema { try connection.fixtureScript(statement) }
            return try SchemaImport.read(schema: "swap", versionName: "v1", on: connection).version.yamlText()
        }
        #expect(imported.contains("type: int32,"), "\(imported)")
        let v1Text = imported.replacingOccurrences(of: "type: int32,", with: "type: int32, allowsNarrowing: true,")
        let v2Text = v1Text.replacingOccurrences(of: "type: int32,", with: "type: int64,")
        try await OnlineFamilyDirectory.withMigrator("SwappedNames", versions: [("v1", v1Text), ("v2", v2Text)], logger: "SwappedNames") { migrator, connection, _ in
            for statement in Self.schema { try connection.fixtureScript(statement) }
            func indexes() throws -> [String] {
                try connection.column("SELECT indexname || ' ' || regexp_replace(indexdef, '.* USING ', '') FROM pg_indexes WHERE schemaname = 'swap' AND tablename = 'items' ORDER BY 1",
                                      as: String.self)
            }
            let before = try indexes()
            #expect(before == ["items_code_idx btree (qty)", "items_pkey btree (id)", "items_qty_idx btree (code)"])
            _ = try await migrator.adoptTenant("adopted", schema: "swap")
            for version in ["v2", "v1"] {
                let run = try await migrator.migrate(tenant: "adopted", MigrationRequest(.move, to: version, online: .on))
                #expect(run.outcome == .migrated, "\(run)")
                #expect(run.online?.mode == "shadow", "\(String(describing: run.online))")
                let after = try indexes()
                #expect(after == before, "at \(version)")
                #expect(try await migrator.verify(tenants: ["adopted"]).allSatisfy(\.isClean), "at \(version)")
            }
        }
    }
}
