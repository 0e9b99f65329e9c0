import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Pins through the real `tenant-migrate` executable: what the operator sees.
@Suite("tenant-migrate and pins")
struct PinCommandTests {
    /// Runs the executable against `conninfo` and the repository's Migrations.
    func tenantMigrate(_ conninfo: String, _ arguments: [String]) async throws -> TenantMigrateExecutable.Output {
        try await TenantMigrateExecutable.run(arguments + ["--database-url", conninfo, "--migrations", migrationsDirectory])
    }

    /// The JSON object `output` printed.
    func json(_ output: TenantMigrateExecutable.Output) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(output.stdout.utf8))
    }

    @Test(.enabled(if: tenantMigrateExecutable != nil, "needs the tenant-migrate executable beside the test bundle"))
    func aRolledBackTenantStaysThroughMigrateAllUntilUnpinned() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try Connection(conninfo, logger: quietLogger)
            #expect(try await tenantMigrate(conninfo, ["tenant", "create", "a", "b"]).status == 0)
            let rollback = try await tenantMigrate(conninfo, ["rollback", "--tenant", "a", "--to", "v1", "--allow-destructive"])
            #expect(rollback.status == 0, "\(rollback.stderr)")

            // The deploy: b is already there, a is pinned; exit 0, and the summary says so.
            let deploy = try await tenantMigrate(conninfo, ["migrate", "--all"])
            #expect(deploy.status == 0, "\(deploy.stderr)")
            #expect(deploy.stdout.contains("0 migrated, 1 already there, 0 failed, 1 pinned"), "\(deploy.stdout)")
            #expect(deploy.stdout.split(separator: "\n").contains { $0.hasPrefix("a ") && $0.contains("pinned") }, "\(deploy.stdout)")
            #expect(try connection.tenantVersions()["a"]?.version == "v1")

            let report = try await tenantMigrate(conninfo, ["migrate", "--all", "--json"])
            #expect(report.status == 0)
            let object = try json(report) as? [String: Any]
            #expect((object?["summary"] as? [String: Int])?["pinned"] == 1)
            let entries = object?["entries"] as? [[String: Any]] ?? []
            #expect(entries.first { $0["tenant"] as? String == "a" }?["outcome"] as? String == "pinned")

            // Several --tenant is a selection: a stays.
            let listed = try await tenantMigrate(conninfo, ["migrate", "--tenant", "a", "--tenant", "b"])
            #expect(listed.status == 0)
            #expect(listed.stdout.contains("a: pinned, left at v1"), "\(listed.stdout)")
            #expect(try connection.tenantVersions()["a"]?.version == "v1")

            // status and tenant list show the pin, as text and as JSON.
            let status = try await tenantMigrate(conninfo, ["status"])
            #expect(status.stdout.contains("PINNED") && status.stdout.contains("v1 (rolled back)"), "\(status.stdout)")
            #expect(status.stdout.contains("2 tenants, 1 behind v3, 1 pinned"), "\(status.stdout)")
            let statuses = try json(try await tenantMigrate(conninfo, ["status", "--json"])) as? [[String: Any]] ?? []
            let pins = statuses.map { ($0["record"] as? [String: Any])?["pinnedVersion"] as? String }
            #expect(pins == ["v1", nil])
            let list = try json(try await tenantMigrate(conninfo, ["tenant", "list", "--json"])) as? [[String: Any]] ?? []
            #expect(list.map { $0["pinnedVersion"] as? String } == ["v1", nil])
            #expect(try await tenantMigrate(conninfo, ["tenant", "list"]).stdout.contains("v1 (rolled back)"))

            // Released, the next deploy moves it.
            let unpin = try await tenantMigrate(conninfo, ["tenant", "unpin", "a"])
            #expect(unpin.status == 0 && unpin.stdout.contains("unpinned tenant a"), "\(unpin.stderr)")
            let next = try await tenantMigrate(conninfo, ["migrate", "--all"])
            #expect(next.status == 0 && next.stdout.contains("1 migrated, 1 already there, 0 failed"), "\(next.stdout)")
            #expect(!next.stdout.contains("pinned"))
            #expect(try connection.tenantVersions()["a"]?.version == "v3")
        }
    }

    @Test(.enabled(if: tenantMigrateExecutable != nil, "needs the tenant-migrate executable beside the test bundle"))
    func tenantPinMovesAndPinsAndASingleMigrateTenantOverridesIt() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try Connection(conninfo, logger: quietLogger)
            #expect(try await tenantMigrate(conninfo, ["tenant", "create", "a", "--version", "v1"]).status == 0)

            let pin = try await tenantMigrate(conninfo, ["tenant", "pin", "a", "--version", "v2", "--reason", "customer asked"])
            #expect(pin.status == 0 && pin.stdout.contains("pinned tenant a at v2"), "\(pin.stdout)\(pin.stderr)")
            #expect(try await tenantMigrate(conninfo, ["status"]).stdout.contains("v2 (customer asked)"))
            #expect(try await tenantMigrate(conninfo, ["migrate", "--all"]).stdout.contains("1 pinned"))
            #expect(try connection.tenantVersions()["a"]?.version == "v2")

            // An experienced operator's `migrate --tenant a` moves a, and the pin goes.
            let migrate = try await tenantMigrate(conninfo, ["migrate", "--tenant", "a"])
            #expect(migrate.status == 0 && migrate.stdout.contains("a: migrated v2 → v3"), "\(migrate.stdout)\(migrate.stderr)")
            #expect(!(try await tenantMigrate(conninfo, ["status"]).stdout.contains("customer asked")))
            let unpin = try await tenantMigrate(conninfo, ["tenant", "unpin", "a"])
            #expect(unpin.status == 0 && unpin.stdout.contains("tenant a was not pinned"))

            let unknown = try await tenantMigrate(conninfo, ["tenant", "pin", "nobody"])
            #expect(unknown.status != 0 && unknown.stderr.contains("nobody"), "\(unknown.stderr)")
        }
    }
}
