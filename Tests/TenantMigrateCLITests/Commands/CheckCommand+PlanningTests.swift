import Foundation
import PostgresTestSupport
import Testing

/// `check` plans each adjacent pair once, whatever it prints (issue 32: it planned each pair two to
/// four times). Counted by the planner's own debug line, `planned v1 → v2: 1 step`, which
/// `--verbose` writes to standard error.
@Suite("check plans once")
struct CheckCommandPlanningTests {
    static let migrations = PackagePaths.root.appendingPathComponent("Migrations").path
    static let pairs = ["v1 → v2", "v2 → v1", "v2 → v3", "v3 → v2"]

    @Test(arguments: [["--offline"], ["--offline", "--json"], ["--offline", "--format", "markdown"], ["--offline", "--format", "html"]])
    func everyFormatPlansEachPairOnce(_ format: [String]) async throws {
        let output = try await TenantMigrateExecutable.run(["check", "--verbose", "--migrations", Self.migrations] + format)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(Self.plannings(in: output.stderr) == Dictionary(uniqueKeysWithValues: Self.pairs.map { ($0, 1) }), "\(output.stderr)")
    }

    @Test func theSQLCheckPlansEachPairOnceToo() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let output = try await TenantMigrateExecutable.run(["check", "--verbose", "--migrations", Self.migrations, "--database-url", conninfo])
            #expect(output.status == 0, "\(output.stderr)")
            #expect(output.stdout.contains("every mapping filter and expression is valid SQL"), "\(output.stdout)")
            #expect(Self.plannings(in: output.stderr) == Dictionary(uniqueKeysWithValues: Self.pairs.map { ($0, 1) }), "\(output.stderr)")
        }
    }

    /// How many times the log says each pair was planned.
    static func plannings(in log: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        for line in log.split(separator: "\n") {
            guard let start = line.range(of: " planned "), let end = line.range(of: ":", range: start.upperBound..<line.endIndex) else { continue }
            counts[String(line[start.upperBound..<end.lowerBound]), default: 0] += 1
        }
        return counts
    }
}
