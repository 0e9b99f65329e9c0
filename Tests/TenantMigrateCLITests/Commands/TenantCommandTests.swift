import Foundation
import LibPQ
import PostgresTestSupport
import Testing

/// `tenant create`'s options are checked before anything is created, as `migrate`'s are.
@Suite("tenant create: options checked up front")
struct TenantCommandTests {
    /// How many of the schemas of tenants acme and globex are there.
    static func tenantSchemas(_ conninfo: String) throws -> Int {
        try Connection(conninfo).execute("SELECT count(*)::int FROM pg_namespace WHERE nspname IN ('tenant_acme', 'tenant_globex')")
            .first?.decode(Int.self, at: 0) ?? -1
    }

    @Test func jobsBelowOneIsRefused() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            for jobs in [["-j", "0"], ["--jobs=-3"]] {
                let output = try await tracker(["tenant", "create", "acme", "globex"] + jobs, on: conninfo)
                #expect(output.status == 64 && output.stderr.hasPrefix("Error: --jobs must be at least 1\nUsage: tenant-migrate tenant create"),
                        "\(jobs): \(output.stderr)")
            }
            #expect(try Self.tenantSchemas(conninfo) == 0)
        }
    }

    /// No name: the usage line is `tenant create`'s; a file of comments only says so.
    @Test func noNameIsRefusedWithTheCommandsUsage() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tenants-\(UUID().uuidString).txt")
        try "# nobody yet\n\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        try await TestPostgres.withDatabaseURL { conninfo in
            let none = try await tracker(["tenant", "create"], on: conninfo)
            #expect(none.status == 64 && none.stderr.hasPrefix("Error: name at least one tenant, or --from-file\nUsage: tenant-migrate tenant create"),
                    "\(none.stderr)")
            let empty = try await tracker(["tenant", "create", "--from-file", file.path], on: conninfo)
            #expect(empty.status == 1 && empty.stderr == "Error: \(file.path) names no tenant (only blank lines and # comments)\n", "\(empty.stderr)")
        }
    }
}
