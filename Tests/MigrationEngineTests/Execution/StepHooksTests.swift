import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Issue 9's defect 6: stage hooks run as documented — scoped to a family and a pair, mapped or
/// inferred; willMigrate after the step's DDL and before its data moves; didMigrate after its
/// validation; a failing hook is named.
@Suite("Stage hooks")
struct StepHooksTests {
    struct HookFailed: Error, CustomStringConvertible { let description = "the hook says no" }

    /// Whether `task.priority` exists, and the titles, as a hook sees them.
    static func state(_ connection: PolicyConnection, _ schema: String) throws -> String {
        let priority = try connection.execute("SELECT count(*)::int FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'task' AND column_name = 'priority'", [schema])
            .first!.decode(Int.self, at: 0)
        let titles = try connection.execute(unsafeSQL: "SELECT string_agg(title, ',' ORDER BY id) FROM \(connection.quoteIdentifier(schema)).task").first!.decode(String.self, at: 0)
        return "priority=\(priority) titles=\(titles)"
    }

    @Test func hooksRunInTheirFamilysPairAfterTheDDLAndAfterValidation() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let log = Locked<[String]>([])
            var policies = MappingModelAccountTests.policies
            func hooks(_ tag: String) -> StepHooks {
                StepHooks(willMigrate: { c, s in let state = try Self.state(c, s); log.withLock { $0.append("\(tag) will \(state)") } },
                          didMigrate: { c, s in let state = try Self.state(c, s); log.withLock { $0.append("\(tag) did \(state)") } })
            }
            policies.registerHooks(family: "Tasks", from: "v1", to: "v2", hooks("up"))        // inferred
            policies.registerHooks(family: "Tasks", from: "v2", to: "v1", hooks("down"))      // mapped
            policies.registerHooks(family: "Notes", from: "v1", to: "v2", hooks("other family"))
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: fixture("Tasks"), policies: policies)
            let schema = try await migrator.createTenant("todo", version: "v1").schema
            let connection = try Connection(conninfo)
            try connection.execute(unsafeSQL: "INSERT INTO \(schema).task (id, title) VALUES (1, ' a '), (2, 'b')")

            _ = try await migrator.migrate(tenant: "todo", to: "v2")
            _ = try await migrator.rollback(tenant: "todo", to: "v1", allowDestructive: true)
            #expect(log.value == [
                // The new column exists when willMigrate runs (after the DDL).
                "up will priority=1 titles= a ,b", "up did priority=1 titles= a ,b",
                // The mapped step: before its policy trims the titles and before the drop; after validation.
                "down will priority=1 titles= a ,b", "down did priority=0 titles=a,b",
            ])
        }
    }

    @Test func aFailingHookIsNamedAndRollsBack() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            var policies = MappingModelAccountTests.policies
            policies.registerHooks(family: "Tasks", from: "v1", to: "v2", StepHooks(didMigrate: { _, _ in throw HookFailed() }))
            let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: fixture("Tasks"), policies: policies)
            _ = try await migrator.createTenant("todo", version: "v1")
            if let error = await migrationFailure("the hook must fail the migration", {
                _ = try await migrator.migrate(tenant: "todo", to: "v2")
            }) {
                let hookError = try #require(error.underlying as? StepHookError, "\(error)")
                #expect(hookError.hook == "didMigrate" && hookError.step == "v1 → v2")
                #expect(error.description.contains("didMigrate hook of step v1 → v2 failed: the hook says no"), "\(error)")
            }
            #expect(try await migrator.tenants().first?.version == "v1")
        }
    }
}
