import Foundation
import PostgresTestSupport
import Testing

/// `plan` plans its path once, whatever it prints (issue 32: it planned twice when `--format` was
/// given). Counted by the planner's own debug line, `planned v1 → v3: 2 steps`, which `--verbose`
/// writes to standard error (``CheckCommandPlanningTests/plannings(in:)``).
@Suite("plan plans once")
struct PlanCommandPlanningTests {
    static let migrations = PackagePaths.root.appendingPathComponent("Migrations")
    static let formats: [[String]] = [[], ["--json"], ["--format", "json"], ["--format", "markdown"], ["--format", "html"]]

    @Test(arguments: formats)
    func anOfflinePlanPlansOnceInEveryFormat(_ format: [String]) async throws {
        let output = try await TenantMigrateExecutable.run(
            ["plan", "--offline", "--verbose", "--from", "v1", "--to", "v3", "--migrations", Self.migrations.path] + format)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(CheckCommandPlanningTests.plannings(in: output.stderr) == ["v1 → v3": 1], "\(output.stderr)")
    }

    /// Against a database, with the mapping expressions checked, and for a tenant (whose plan also
    /// reads what its archive gives back): still one plan in every format.
    @Test func aPlanAgainstADatabasePlansOnceInEveryFormat() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let created = try await TenantMigrateExecutable.run(["tenant", "create", "acme", "--version", "v1"], database: conninfo, migrations: Self.migrations)
            #expect(created.status == 0, "\(created.stderr)")
            for format in Self.formats {
                for subject in [["--from", "v1", "--to", "v3"], ["--tenant", "acme"]] {
                    let output = try await TenantMigrateExecutable.run(["plan", "--verbose"] + subject + format, database: conninfo, migrations: Self.migrations)
                    #expect(output.status == 0, "\(subject) \(format): \(output.stderr)")
                    #expect(CheckCommandPlanningTests.plannings(in: output.stderr) == ["v1 → v3": 1], "\(subject) \(format): \(output.stderr)")
                }
            }
        }
    }
}
