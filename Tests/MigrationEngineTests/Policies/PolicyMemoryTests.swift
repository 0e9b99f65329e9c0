import ChildProcesses
import EmbeddedPostgres
import Foundation
import LibPQ
import PostgresTestSupport
import Testing

/// A policy run's memory does not grow with the rows it migrates: the real `tenant-migrate`
/// executable migrates Recipes v2 → v3 (both Swift policies: every RecipeIngredient streamed,
/// updated and associated, every Meat or Fish recipe rewritten and archived) for a tenant of
/// 100,000 RecipeIngredient rows and for one of 1,000,000, each in a process of its own, and the
/// two processes' peak resident memory (counted by GNU time, see ``ChildProcess``) are compared.
///
/// Memory that grew with the rows (the policies' associations kept in memory took 16 bytes a row,
/// about 16 MiB more at 1,000,000 rows) shows as a difference far above the margin; nothing is timed.
@Suite("Policy memory stays flat in the rows")
struct PolicyMemoryTests {
    /// What the larger run may use beyond the smaller one's peak: allocator noise, not rows.
    static let marginKiB = 6 * 1024

    @Test(.enabled(if: TenantMigrateExecutable.url != nil, "needs the tenant-migrate executable beside the test bundle"))
    func peakMemoryDoesNotGrowWithRows() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try Connection(conninfo)
            let small = try await migratedPeak(rows: 100_000, tenant: "mem_small", conninfo: conninfo, connection: connection)
            let large = try await migratedPeak(rows: 1_000_000, tenant: "mem_large", conninfo: conninfo, connection: connection)
            print("policy memory: peak \(small) KiB at 100,000 rows, \(large) KiB at 1,000,000 rows")
            #expect(large <= small + Self.marginKiB,
                    "peak \(large / 1024) MiB at 1,000,000 rows against \(small / 1024) MiB at 100,000 rows: memory grows with the rows")
        }
    }

    /// Creates a v2 tenant with `rows` RecipeIngredient rows (NULL quantities, units and recipes
    /// among them), migrates it to v3 in a child process, checks the result, and returns the
    /// child's peak resident memory in KiB.
    func migratedPeak(rows: Int, tenant: String, conninfo: String, connection: Connection) async throws -> Int {
        let arguments = ["--database-url", conninfo, "--migrations", PackagePaths.root.appendingPathComponent("Migrations").path]
        let created = try await TenantMigrateExecutable.run(["tenant", "create", tenant, "--version", "v2"] + arguments)
        try #require(created.status == 0, "tenant create failed: \(created.stderr)")
        let schema = connection.quoteIdentifier("tenant_" + tenant)
        _ = try connection.fixtureScript("""
            INSERT INTO \(schema).recipe (id, name, type)
                SELECT g, 'Recipe ' || g, (ARRAY['Meat', 'Fish', 'Vegetarian', 'Dessert', 'Other'])[1 + g % 5] FROM generate_series(1, 1000) g;
            INSERT INTO \(schema).recipe_ingredient (id, name, quantity, unit_of_measure, recipe_id)
                SELECT g, 'Ingredient ' || (g % 500), CASE WHEN g % 7 = 0 THEN NULL ELSE (g % 1000) / 4.0 END,
                       CASE WHEN g % 500 = 499 THEN NULL ELSE 'unit ' || (g % 500 % 20) END,
                       CASE WHEN g % 97 = 0 THEN NULL ELSE g % 1000 + 1 END
                FROM generate_series(1, \(rows)) g;
            SELECT setval(pg_get_serial_sequence('\(schema).recipe_ingredient', 'id'), \(rows));
            SELECT setval(pg_get_serial_sequence('\(schema).recipe', 'id'), 1000);
            ANALYZE \(schema).recipe;
            ANALYZE \(schema).recipe_ingredient;
            """)
        var environment = ProcessInfo.processInfo.environment
        environment[Connection.strictOneStatementVariable] = "1"
        try #require(FileManager.default.isExecutableFile(atPath: ChildProcess.gnuTime), "GNU time is missing (Debian: apt-get install time; .ci/run installs it)")
        let child = try ChildProcess(TenantMigrateExecutable.url!.path, ["migrate", "--tenant", tenant, "--to", "v3"] + arguments,
                                     environment: environment, measuringPeakMemory: true)
        // Polled, so no thread of the cooperative pool blocks waiting for it.
        let run = try await child.finished()
        try #require(run.status == 0, "migrate failed: \(run.output)")
        // The policies really ran over every row.
        func count(_ sql: String) throws -> Int64 { try connection.execute(unsafeSQL: sql)[0].decode(Int64.self, at: 0) }
        #expect(try count("SELECT count(*) FROM \(schema).recipe_ingredient WHERE ingredient_id IS NOT NULL") == Int64(rows))
        #expect(try count("SELECT count(*) FROM \(schema).ingredient") == 500)
        #expect(try count("SELECT count(*) FROM \(schema).recipe WHERE type = 'Entrée'") == 400)
        #expect(run.peakMemoryIsExact)
        #expect(run.peakMemoryKiB > 0)
        return run.peakMemoryKiB
    }
}
