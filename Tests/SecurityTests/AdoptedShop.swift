import Foundation
import LibPQ
import TenantMigratorTestSupport
import Testing

// What the tests of tables the app's role owns share: the shop's family, the adopted shop
// (AppOwnedTablesTests.adoptedShop) under that family, a refusal that must name what it refuses,
// and a tenant left as it was.

/// Shop v1: items with an optional name and a note; v2 makes the name required (NULLs become
/// "none", an UPDATE of the table) and keeps the note or drops it. Returns the models' directory
/// (a new temporary one: the caller removes it).
func shopFamily(keepingTheNote: Bool) throws -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("tm-shop-\(UUID().uuidString)")
    let directory = root.appendingPathComponent("Shop")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let note = "      note: { type: string, optional: true }\n"
    let files = [
        "family.yaml": "family: Shop\nversions: [v1, v2]\n",
        "v1.yaml": "entities:\n  Item:\n    attributes:\n      name: { type: string, optional: true }\n" + note,
        "v2.yaml": "entities:\n  Item:\n    attributes:\n      name: { type: string, default: none }\n" + (keepingTheNote ? note : ""),
    ]
    for (name, text) in files { try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8) }
    return root
}

extension LeastPrivilegeDatabase {
    /// Runs `body` on a new least-privilege database whose shop the superuser adopted as tenant
    /// `t` at v1, with the models `family` writes (removed afterwards): the setup, the superuser's
    /// and the app's connections, and the models' directory.
    static func withAdoptedShop(
        _ family: () throws -> URL, _ body: (LeastPrivilegeDatabase, _ admin: Connection, _ app: Connection, _ migrations: URL) async throws -> Void
    ) async throws {
        let migrations = try family()
        defer { try? FileManager.default.removeItem(at: migrations) }
        try await with { setup in
            let (admin, app) = try await AppOwnedTablesTests.adoptedShop(setup, migrations: migrations)
            try await body(setup, admin, app, migrations)
        }
    }
}

/// Runs `tenant-migrate arguments` (see ``tenantMigrateError(_:_:migrations:)``), expects it to fail
/// with a message naming each of `parts`, and returns the message.
@discardableResult
func expectRefused(_ conninfo: String, _ arguments: [String], migrations: String = migrationsDirectory, naming parts: [String]) async -> String {
    let error = await tenantMigrateError(conninfo, arguments, migrations: migrations)
    let message = "\(error.map { "\($0)" } ?? "no error")"
    for part in parts {
        #expect(message.contains(part), "the refusal does not name \(part): \(message)")
    }
    return message
}

/// Expects the adopted shop as it was: tenant `t` at v1, the items' names and notes as inserted
/// (read from `items`), and nothing the app's code logged.
func expectShopUntouched(_ admin: Connection, items: String = "shop.item") throws {
    #expect(try admin.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 't'", as: String.self) == "v1")
    #expect(try admin.rows("SELECT name, note FROM \(items) ORDER BY id") == [["Tea", "green"], [nil, "black"], ["Milk", nil]])
    #expect(try admin.column("SELECT who || ' ran ' || what FROM public.pwned", as: String.self).isEmpty)
}
