import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigratorTestSupport
import Testing

/// `archive prune` says what it did also when there is nothing to do: with no tenant (before any
/// catalog, and after), it says so, where it printed nothing at all; with tenants, each one's count.
@Suite("archive prune with nothing to prune")
struct ArchiveCommandPruneTests {
    @Test func itSaysThatThereIsNothingToPrune() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let prune = ["archive", "prune", "--older-than", "1d"]
            let empty = try await tracker(prune, on: conninfo)
            #expect(empty.status == 0 && empty.stdout == "no tenants: nothing to prune\n", "\(empty.stdout)\(empty.stderr)")
            let json = try await tracker(prune + ["--json"], on: conninfo)
            let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Int]
            #expect(json.status == 0 && document == [:], "\(json.stdout)")

            #expect(try await tracker(["tenant", "create", "acme", "--version", "v1"], on: conninfo).status == 0)
            let one = try await tracker(prune, on: conninfo)
            #expect(one.status == 0 && one.stdout == "acme: 0 entries pruned\n", "\(one.stdout)\(one.stderr)")
        }
    }
}
