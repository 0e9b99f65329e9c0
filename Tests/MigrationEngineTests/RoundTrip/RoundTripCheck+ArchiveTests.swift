import Foundation
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 30: `check --round-trip` says what the archive showed of each trip, in text and JSON:
/// columns proved by the way back, proofs withheld as unsafe (and so archived in every row), and
/// where (entity, attribute, table, column, rows: ``ArchiveFinding``).
@Suite("check --round-trip: what the archive shows")
struct RoundTripCheckArchiveTests {
    private func check(_ conninfo: String, migrations: String, family: String, json: Bool) async throws -> TenantMigrateExecutable.Output {
        try await TenantMigrateExecutable.run(["check", "--round-trip", "--database-url", conninfo, "--migrations", migrations, "--family", family,
                                               "--rows", "12"] + (json ? ["--json"] : []))
    }

    /// OtherRows' way back derives both dropped columns from other rows, immutably: both proved.
    @Test func proofsMadeAreReported() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrations = PackagePaths.root.appendingPathComponent("Tests/MigrationEngineTests/Fixtures").path
            let output = try await check(conninfo, migrations: migrations, family: "OtherRows", json: true)
            #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
            let report = try JSONDecoder().decode(RoundTripReport.self, from: Data(output.stdout.utf8))
            let trip = try #require(report.trips.first { $0.path == ["v1", "v2", "v1"] })
            #expect(trip.statistics?.provedColumns == 2 && trip.statistics?.withheldProofs == 0, "\(String(describing: trip.statistics))")
            let text = try await check(conninfo, migrations: migrations, family: "OtherRows", json: false)
            #expect(text.stdout.contains("v1 → v2 → v1: ok") && text.stdout.contains("2 columns proved by the way back"), "\(text.stdout)")
        }
    }

    /// A way back through `now()` is not proved, nor is the way up's `to_char(at, …)` (STABLE) as
    /// the way back of v2 → v1's dropped `local`: the trip says both proofs were withheld, and still
    /// gives every value back.
    @Test func proofsWithheldAsUnsafeAreReported() async throws {
        let directory = try WayBackTrustTests().family(wayBack: [("d", "pg_catalog.now()::text")])
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrations = directory.deletingLastPathComponent().path
            let output = try await check(conninfo, migrations: migrations, family: "WayBackTrust", json: true)
            #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
            let report = try JSONDecoder().decode(RoundTripReport.self, from: Data(output.stdout.utf8))
            let trip = try #require(report.trips.first { $0.path == ["v1", "v2", "v1"] })
            #expect(trip.passed && trip.statistics?.provedColumns == 0 && trip.statistics?.withheldProofs == 2, "\(String(describing: trip.statistics))")
            // Where: each column, by attribute, with every row's value archived (12 rows).
            let withheld = (trip.statistics?.findings ?? []).map { "\($0.kind.rawValue) \($0.entity ?? "").\($0.attribute ?? "") \($0.table).\($0.column ?? "") \($0.rows)" }
            #expect(withheld.sorted() == ["proofWithheld Item.d item.d 12", "proofWithheld Item.local item.local 12"], "\(withheld)")
            // And why: what PostgreSQL found not IMMUTABLE in each way back.
            let reasons = (trip.statistics?.findings ?? []).sorted { ($0.column ?? "") < ($1.column ?? "") }.map(\.reason)
            #expect(reasons.first == "it calls now(), which is not IMMUTABLE" && reasons.last??.hasSuffix("which is not IMMUTABLE") == true, "\(reasons)")
            let text = try await check(conninfo, migrations: migrations, family: "WayBackTrust", json: false)
            #expect(text.stdout.contains("2 proofs withheld as unsafe (archived in every row)")
                && text.stdout.contains("Item.d (item.d): proof by the way back withheld as unsafe (it calls now(), which is not IMMUTABLE), 12 values archived")
                && text.stdout.contains("Item.local (item.local): proof by the way back withheld as unsafe (it calls "), "\(text.stdout)")
            // What it cannot show, said in its own words.
            #expect(text.stdout.contains("no app changes are made between the ways"), "\(text.stdout)")
        }
    }
}
