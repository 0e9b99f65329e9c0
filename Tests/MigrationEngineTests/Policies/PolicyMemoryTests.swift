import Foundation
import LibPQ
import PostgresTestSupport
import Testing

/// A policy run's memory does not grow with the rows it migrates: the real `tenant-migrate`
/// executable migrates Recipes v2 → v3 (both Swift policies: every RecipeIngredient streamed,
/// updated and associated, every Meat or Fish recipe rewritten and archived) for a tenant of
/// 100,000 RecipeIngredient rows and for one of 1,000,000, each in a process of its own, and the
/// two processes' peak resident memory (`ru_maxrss`) are compared.
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
        let run = try await ChildProcess.run(TenantMigrateExecutable.url!, ["migrate", "--tenant", tenant, "--to", "v3"] + arguments)
        try #require(run.status == 0, "migrate failed: \(run.output)")
        // The policies really ran over every row.
        func count(_ sql: String) throws -> Int64 { try connection.execute(sql)[0].decode(Int64.self, at: 0) }
        #expect(try count("SELECT count(*) FROM \(schema).recipe_ingredient WHERE ingredient_id IS NOT NULL") == Int64(rows))
        #expect(try count("SELECT count(*) FROM \(schema).ingredient") == 500)
        #expect(try count("SELECT count(*) FROM \(schema).recipe WHERE type = 'Entrée'") == 400)
        #expect(run.peakKiB > 0)
        return run.peakKiB
    }
}

/// A program run to its end with its peak resident memory, which `wait4` reports for the child
/// (Foundation's `Process` reaps its children itself and does not say).
enum ChildProcess {
    struct Outcome {
        let status: Int32
        let output: String
        /// `ru_maxrss`: the child's peak resident set, in KiB on Linux.
        let peakKiB: Int
    }

    static func run(_ executable: URL, _ arguments: [String]) async throws -> Outcome {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("policy-memory-\(UUID().uuidString).out").path
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var environment = ProcessInfo.processInfo.environment
        environment[Connection.strictOneStatementVariable] = "1"
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        guard spawned == 0 else { throw ChildProcessError("cannot run \(executable.path): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        var usage = rusage()
        // Polled, so no thread of the cooperative pool blocks in wait4.
        while true {
            let reaped = wait4(pid, &status, WNOHANG, &usage)
            if reaped == pid { break }
            if reaped < 0, errno != EINTR { throw ChildProcessError("waiting for \(executable.path) failed: \(String(cString: strerror(errno)))") }
            try await Task.sleep(for: .milliseconds(50))
        }
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Outcome(status: exitStatus, output: output, peakKiB: usage.ru_maxrss)
    }
}

struct ChildProcessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
