import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigratorTestSupport
import Testing

/// The catalog is only ever created by commands that write, never inside another schema; and a
/// released version file that was edited is refused.
@Suite("Catalog name and edited models")
struct CatalogAndModelTests {
    static func dump(_ setup: LeastPrivilegeDatabase) async throws -> String {
        try await TestPostgres.dump(setup.adminURL)
    }

    static func changes(_ before: String, _ after: String) -> [String] {
        TestPostgres.dumpChanges(before, after)
    }

    @Test func readOnlyCommandsWriteNothing() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            // Before any catalog exists, and then with one.
            for round in 0..<2 {
                if round == 1 {
                    #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "create", "a1", "--version", "v1"]) == 0)
                }
                let before = try await Self.dump(setup)
                #expect(try await runTenantMigrate(setup.migrator.url, ["status"]) == 0)
                #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "list"]) == 0)
                #expect(try await runTenantMigrate(setup.migrator.url, ["verify"]) == 0)
                #expect(try await runTenantMigrate(setup.migrator.url, ["check"]) == 0)
                _ = await tenantMigrateError(setup.migrator.url, ["plan", "--tenant", "a1", "--to", "v3"])
                let after = try await Self.dump(setup)
                #expect(after == before, "round \(round): a read-only command changed the database: \(Self.changes(before, after).prefix(20))")
            }
        }
    }

    @Test func theCatalogIsNeverCreatedInsideAnotherSchema() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "create", "a1", "--version", "v1"]) == 0)
            let migrator = try setup.migrator.connect()
            try migrator.execute("CREATE SCHEMA app")
            let before = try await Self.dump(setup)
            for arguments in [["status"], ["tenant", "list"], ["verify"], ["migrate", "--all"], ["tenant", "create", "b1"]] {
                for catalog in ["tenant_a1", "app"] {
                    let error = await tenantMigrateError(setup.migrator.url, arguments + ["--catalog", catalog])
                    #expect("\(error.map { "\($0)" } ?? "no error")".contains("is not a tenant catalog"), "\(arguments) --catalog \(catalog)")
                }
            }
            for name in ["Tenant", "pg_catalog", "public", "1x", "a-b", String(repeating: "x", count: 64)] {
                let error = await tenantMigrateError(setup.migrator.url, ["status", "--catalog", name])
                #expect(error != nil, "--catalog \(name) was accepted")
            }
            let after = try await Self.dump(setup)
            #expect(after == before, "\(Self.changes(before, after).prefix(20))")

            // A new name that is not an existing schema is fine, and only a writing command creates it.
            #expect(try await runTenantMigrate(setup.migrator.url, ["status", "--catalog", "other_catalog"]) == 0)
            #expect(try migrator.scalar("SELECT count(*)::int FROM pg_namespace WHERE nspname = 'other_catalog'", as: Int.self) == 0)
            #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "create", "b1", "--catalog", "other_catalog"]) == 0)
            #expect(try migrator.scalar("SELECT count(*)::int FROM other_catalog.tenants", as: Int.self) == 1)
        }
    }

    @Test func anEditedReleasedVersionFileIsRefused() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            // A copy of the Recipes family, so its v1.yaml can be edited.
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("tm-edited-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: root) }
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: migrationsDirectory + "/Recipes", toPath: root.appendingPathComponent("Recipes").path)
            let migrations = root.path
            #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "create", "t1", "--version", "v1"], migrations: migrations) == 0)
            #expect(try await runTenantMigrate(setup.migrator.url, ["tenant", "create", "t2", "--version", "v1"], migrations: migrations) == 0)
            let admin = try setup.adminConnection()
            try admin.execute("INSERT INTO tenant_t1.recipe (name, instructions) VALUES ('Soup', 'Boil.')")

            // Someone removes an attribute from the released v1.yaml.
            let v1 = root.appendingPathComponent("Recipes/v1.yaml")
            let text = try String(contentsOf: v1, encoding: .utf8)
            try text.replacingOccurrences(of: "      instructions: { type: string, optional: true }\n", with: "")
                .write(to: v1, atomically: true, encoding: .utf8)
            let before = try await Self.dump(setup)

            for arguments in [["migrate", "--all"], ["migrate", "--tenant", "t1"]] {
                let error = await tenantMigrateError(setup.migrator.url, arguments, migrations: migrations)
                let message = "\(error.map { "\($0)" } ?? "no error")"
                #expect(message.contains("Recipes/v1.yaml") && message.contains("t1"), "\(arguments): \(message)")
                #expect(!arguments.contains("--all") || message.contains("t2"))
            }
            let after = try await Self.dump(setup)
            #expect(after == before, "\(Self.changes(before, after).prefix(20))")
            // verify reports the mismatch as drift.
            #expect(try await runTenantMigrate(setup.migrator.url, ["verify", "--tenant", "t1"], migrations: migrations) == 2)

            // The operator who knows better may accept it.
            #expect(try await runTenantMigrate(setup.migrator.url, ["migrate", "--tenant", "t2", "--accept-model-change"], migrations: migrations) == 0)
            #expect(try admin.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 't2'", as: String.self) == "v3")
        }
    }
}
