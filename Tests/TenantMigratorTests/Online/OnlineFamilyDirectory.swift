import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport

/// A family written for one online test in a temporary directory: `family.yaml`, one file per
/// version and one per mapping model (`Mappings/<name>.yaml`, `v1-to-v2`), removed by ``remove()``.
struct OnlineFamilyDirectory {
    let directory: URL

    init(_ family: String, versions: [(String, String)], mappings: [(String, String)] = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(family.lowercased())-\(UUID().uuidString)/\(family)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let names = versions.map(\.0).joined(separator: ", ")
        try "family: \(family)\nversions: [\(names)]\n".write(to: directory.appendingPathComponent("family.yaml"), atomically: true, encoding: .utf8)
        for (name, text) in versions {
            try text.write(to: directory.appendingPathComponent("\(name).yaml"), atomically: true, encoding: .utf8)
        }
        guard !mappings.isEmpty else { return }
        let folder = directory.appendingPathComponent("Mappings")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in mappings { try text.write(to: folder.appendingPathComponent("\(name).yaml"), atomically: true, encoding: .utf8) }
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory.deletingLastPathComponent())
    }
}

extension OnlineFamilyDirectory {
    /// Writes the family `name` with `versions`, and runs `body` on a new test database with a
    /// migrator of that family (logging as `label`, warnings and errors only), a connection and the
    /// database's connection string; the family is removed afterwards.
    static func withMigrator(
        _ name: String, versions: [(String, String)], logger label: String,
        _ body: (_ migrator: TenantMigrator, _ connection: Connection, _ conninfo: String) async throws -> Void
    ) async throws {
        let family = try OnlineFamilyDirectory(name, versions: versions)
        defer { family.remove() }
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: family.directory, logger: .quiet(label))
            try await body(migrator, try Connection(conninfo), conninfo)
        }
    }
}
