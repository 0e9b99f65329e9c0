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
}
