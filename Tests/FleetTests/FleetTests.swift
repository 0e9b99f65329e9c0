import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Fleet runs (`migrateAll`, `rollbackAll`, `createTenants`, `migrate --all`) against PostgreSQL:
/// failures isolated to their tenant, concurrent runners, interruption and cancellation,
/// selection, and the cost of a run with nothing to do.
@Suite("Fleet runs")
struct FleetTests {
    // MARK: - One failing tenant among 200

    /// Makes `tenant`'s v1 → v3 migration fail for real, without any lock: v3 moves
    /// `recipe_ingredient.name` and `.unit_of_measure` into Ingredient and UnitOfMeasure and then
    /// drops both columns; a view reading them (as a reporting tool or a DBA might create in a
    /// tenant's schema) makes that `DROP COLUMN` fail with SQLSTATE 2BP01
    /// (dependent_objects_still_exist), late in the mapped step, after the policies ran.
    static func addBlockingView(to tenant: String, on connection: Connection) throws {
        let schema = connection.quoteIdentifier("tenant_" + tenant)
        try connection.fixtureScript("""
            CREATE VIEW \(schema).ingredient_report AS
            SELECT r.name AS recipe, i.name AS ingredient, i.unit_of_measure
            FROM \(schema).recipe AS r JOIN \(schema).recipe_ingredient AS i ON i.recipe_id = r.id
            """)
    }

    /// 200 tenants at v1 (every 20th with 5 recipes of 3 ingredients, and the failing one too);
    /// returns the failing tenant's schema shape and table checksums.
    static func setUpTwoHundred(_ conninfo: String, failing: String) async throws -> (shape: [String], sums: [String: String]) {
        let filled = names("t", 200).enumerated().filter { $0.offset % 20 == 0 }.map(\.element) + [failing]
        let (_, _, connection) = try await recipesFleet(conninfo, "t", 200, recipes: 5, filled: filled)
        try addBlockingView(to: failing, on: connection)
        return (try connection.schemaShape("tenant_" + failing), try connection.tableChecksums(schema: "tenant_" + failing))
    }

    /// 199 tenants at v3 and ready; `failing` at v1, failed, its schema and data exactly as before,
    /// one failed history row with the SQLSTATE.
    static func expectOneFailure(_ conninfo: String, failing: String, before: (shape: [String], sums: [String: String])) throws {
        let connection = try Connection(conninfo, logger: quietLogger)
        let versions = try connection.tenantVersions()
        #expect(versions.count == 200)
        #expect(versions.filter { $0.value.version == "v3" && $0.value.state == "ready" }.count == 199)
        #expect(versions[failing]?.version == "v1")
        #expect(versions[failing]?.state == "failed")
        let lastError: String? = try connection.scalar("SELECT last_error FROM tenant_migrator.tenants WHERE name = $1", [failing])
        #expect(lastError?.contains("ingredient_report") == true, "last_error: \(lastError ?? "nil")")
        let history = try connection.execute(
            "SELECT outcome, sqlstate FROM tenant_migrator.migration_history WHERE tenant = $1 AND operation = 'migrate'", [failing]
        ).map { [$0[0], $0[1]] }
        #expect(history == [["failed", "2BP01"]])
        #expect(try connection.schemaShape("tenant_" + failing) == before.shape)
        #expect(try connection.tableChecksums(schema: "tenant_" + failing) == before.sums)
        // A migrated tenant with data: its rows made it through the mapped step.
        #expect(try connection.scalar("SELECT count(*)::int FROM tenant_t001.recipe_ingredient WHERE ingredient_id IS NOT NULL", as: Int.self) == 15)
        #expect(try connection.scalar("SELECT count(*)::int FROM tenant_t001.recipe WHERE type IN ('Meat', 'Fish')", as: Int.self) == 0)
        #expect(try connection.scalar("SELECT count(*)::int FROM tenant_t001.recipe WHERE type = 'Entrée'", as: Int.self) == 2)  // recipes 1 (Fish) and 5 (Meat)
    }

    @Test func oneFailingTenantAmongTwoHundredThroughTheCLIAndTheFacade() async throws {
        let failing = "t137"
        try await TestPostgres.withDatabaseURL { cliDatabase in
            try await TestPostgres.withDatabaseURL { facadeDatabase in
                async let cliSetUp = Self.setUpTwoHundred(cliDatabase, failing: failing)
                async let facadeSetUp = Self.setUpTwoHundred(facadeDatabase, failing: failing)
                let (cliBefore, facadeBefore) = try await (cliSetUp, facadeSetUp)

                // The command line, in-process: the run goes on past the failure and exits non-zero.
                let code = try await runTenantMigrate(cliDatabase, ["migrate", "--all", "--jobs", "4", "--json"])
                #expect(code == 1)
                try Self.expectOneFailure(cliDatabase, failing: failing, before: cliBefore)

                // The facade, on an identical fleet: the report, as JSON.
                let report = try await makeRecipesMigrator(facadeDatabase).migrateAll(jobs: 4)
                try Self.expectOneFailure(facadeDatabase, failing: failing, before: facadeBefore)
                let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any]
                let summary = json?["summary"] as? [String: Int]
                #expect(summary == ["total": 200, "migrated": 199, "skipped": 0, "failed": 1, "notStarted": 0, "pinned": 0])
                #expect(json?["interrupted"] as? Bool == false)
                let entries = json?["entries"] as? [[String: Any]] ?? []
                #expect(entries.count == 200)
                let failed = entries.filter { $0["outcome"] as? String == "failed" }
                #expect(failed.count == 1)
                #expect(failed.first?["tenant"] as? String == failing)
                #expect(failed.first?["fromVersion"] as? String == "v1")
                #expect(failed.first?["sqlState"] as? String == "2BP01")
                let error = failed.first?["error"] as? String ?? ""
                #expect(error.contains("tenant \(failing)") && error.contains("rolled back") && error.contains("ingredient_report"), "error: \(error)")
                #expect(entries.filter { $0["outcome"] as? String == "migrated" }.allSatisfy { $0["toVersion"] as? String == "v3" })
            }
        }
    }

    // MARK: - Two runners at once

    @Test func twoConcurrentRunnersMigrateEachTenantOnce() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let filled = names("c", 100).enumerated().filter { $0.offset % 10 == 0 }.map(\.element)
            let (migrator, tenants, _) = try await recipesFleet(conninfo, "c", 100, recipes: 4, filled: filled)

            async let first = migrator.migrateAll(jobs: 2)
            async let second = migrator.migrateAll(jobs: 2)
            let reports = try await [first, second]

            #expect(reports.map(\.migrated).reduce(0, +) == 100)
            #expect(reports.map(\.skipped).reduce(0, +) == 100)
            #expect(reports.allSatisfy { $0.failed == 0 && $0.notStarted == 0 && $0.succeeded && $0.entries.count == 100 })
            // Each tenant is reported migrated by exactly one runner.
            let migratedBy = reports.flatMap { $0.entries.filter { $0.outcome == .migrated }.map(\.tenant) }
            #expect(migratedBy.sorted() == tenants)

            let connection = try Connection(conninfo, logger: quietLogger)
            #expect(try connection.tenantVersions().values.allSatisfy { $0 == ("v3", "ready") })
            let counts = try connection.execute("""
                SELECT tenant, count(*) FILTER (WHERE outcome = 'succeeded')::int, count(*) FILTER (WHERE outcome = 'failed')::int
                FROM tenant_migrator.migration_history WHERE operation = 'migrate' GROUP BY tenant ORDER BY tenant
                """).map { (try $0.decode(String.self, at: 0), try $0.decode(Int.self, at: 1), try $0.decode(Int.self, at: 2)) }
            #expect(counts.map(\.0) == tenants)
            #expect(counts.allSatisfy { $0.1 == 1 && $0.2 == 0 })
            #expect(try await migrator.verify(tenants: ["c001", "c050", "c100"]).allSatisfy(\.isClean))
        }
    }

    // MARK: - Interruption

    @Test func stopFinishesTheTenantsInFlightAndStartsNoOther() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, _, _) = try await recipesFleet(conninfo, "s", 120, recipes: 20)

            let control = FleetControl()
            let stopped = Locked(false)
            let report = try await migrator.migrateAll(jobs: 2, control: control, progress: { progress in
                // One stop only: a second would cancel the tenants in flight.
                let first = progress.done >= 40 && stopped.withLock { stopped in
                    defer { stopped = true }
                    return !stopped
                }
                if first { control.stop() }
            })
            #expect(report.interrupted)
            #expect(!report.succeeded)
            #expect(report.failed == 0)
            #expect(report.migrated >= 40 && report.migrated <= 42, "migrated \(report.migrated)")
            #expect(report.notStarted == 120 - report.migrated)

            // Every tenant is at v1 or v3, as its report line says, and its live schema is exactly
            // its recorded version: never in between.
            let connection = try Connection(conninfo, logger: quietLogger)
            let versions = try connection.tenantVersions()
            for entry in report.entries {
                #expect(versions[entry.tenant]?.version == (entry.outcome == .migrated ? "v3" : "v1"), "\(entry.tenant)")
                #expect(versions[entry.tenant]?.state == "ready")
            }
            let drifted = try await migrator.verify().filter { !$0.isClean }
            #expect(drifted.isEmpty, "drift: \(drifted.map { "\($0.tenant): \($0.differences)" })")
            #expect(try connection.scalar("SELECT count(*)::int FROM tenant_s120.recipe_ingredient", as: Int.self) == 60)

            // A rerun finishes the rest.
            let rerun = try await migrator.migrateAll(jobs: 2)
            #expect(rerun.succeeded)
            #expect(rerun.migrated == report.notStarted)
            #expect(rerun.skipped == report.migrated)
            #expect(try connection.tenantVersions().values.allSatisfy { $0 == ("v3", "ready") })
        }
    }

    @Test func aStopEndsALockWaitAndLeavesThatTenantUntouched() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            // Locks are waited on for long, so only the stop can end the blocked tenant's wait.
            let (migrator, _, connection) = try await recipesFleet(conninfo, "k", 12, recipes: 10, lockTimeout: .seconds(60))
            let before = (try connection.schemaShape("tenant_k001"), try connection.tableChecksums(schema: "tenant_k001"))

            // Another session reads k001's recipes in an open transaction: the migration waits for
            // its table locks before it changes anything.
            let blocker = try Connection(conninfo, logger: quietLogger)
            try blocker.fixtureScript("BEGIN; SELECT count(*) FROM tenant_k001.recipe")

            let control = FleetControl()
            let run = Task { try await migrator.migrateAll(jobs: 2, control: control) }
            let waitedOnLock = try await Self.waitForLockWait(connection)
            #expect(waitedOnLock)
            // One stop (one Ctrl-C): no new tenants, and the tenant waiting for its locks gives up.
            control.stop()
            let report = try await run.value
            try blocker.fixtureScript("ROLLBACK")

            #expect(report.interrupted)
            let blocked = report.entries.first { $0.tenant == "k001" }
            #expect(blocked?.outcome == .notStarted)
            #expect(report.failed == 0)
            #expect(report.notStarted > 0)
            #expect(report.migrated + report.notStarted == 12)

            // Every tenant is at v1 or v3 and ready; k001 is exactly as it was, with no history row.
            let versions = try connection.tenantVersions()
            for entry in report.entries {
                #expect(versions[entry.tenant]?.version == (entry.outcome == .migrated ? "v3" : "v1"), "\(entry.tenant)")
                #expect(versions[entry.tenant]?.state == "ready", "\(entry.tenant)")
            }
            let drifted = try await migrator.verify().filter { !$0.isClean }
            #expect(drifted.isEmpty, "drift: \(drifted.map { "\($0.tenant): \($0.differences)" })")
            #expect(try connection.schemaShape("tenant_k001") == before.0)
            #expect(try connection.tableChecksums(schema: "tenant_k001") == before.1)
            let history = try connection.scalar(
                "SELECT count(*)::int FROM tenant_migrator.migration_history WHERE tenant = 'k001' AND operation = 'migrate'", as: Int.self
            )
            #expect(history == 0)

            let rerun = try await migrator.migrateAll(jobs: 2)
            #expect(rerun.succeeded)
            #expect(rerun.migrated == 12 - report.migrated)
            #expect(try connection.tenantVersions().values.allSatisfy { $0 == ("v3", "ready") })
        }
    }

    /// Polls until `count` sessions of this database wait on a heavyweight lock (at most 30 s).
    static func waitForLockWait(_ connection: Connection, count: Int = 1) async throws -> Bool {
        try await waitUntil { try connection.lockWaiters().count >= count }
    }


    // MARK: - Fail-fast, lost connections, refused connections

    /// Two tenants failing at once under fail-fast used to stop the run twice, and a second stop
    /// cancels the tenants in flight: a healthy tenant was rolled back for nothing.
    @Test func failFastLetsTheHealthyTenantsInFlightFinish() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, _, connection) = try await recipesFleet(conninfo, "f", 10, recipes: 3, lockTimeout: .seconds(60))

            // f001 and f002: another session renames the column their first statement renames, and
            // holds the lock; once it commits, both fail at once (42703). f003: held by a reader.
            let renamer = try Connection(conninfo, logger: quietLogger)
            try renamer.fixtureScript("""
                BEGIN;
                ALTER TABLE tenant_f001.recipe RENAME COLUMN instructions TO notes;
                ALTER TABLE tenant_f002.recipe RENAME COLUMN instructions TO notes
                """)
            let reader = try Connection(conninfo, logger: quietLogger)
            try reader.fixtureScript("BEGIN; SELECT count(*) FROM tenant_f003.recipe")

            let failures = Locked(0)
            let run = Task {
                try await migrator.migrateAll(jobs: 3, failFast: true, progress: { progress in failures.withLock { $0 = progress.failed } })
            }
            #expect(try await Self.waitForLockWait(connection, count: 3))
            try renamer.fixtureScript("COMMIT")
            #expect(try await waitUntil { failures.value == 2 })
            try await Task.sleep(for: .milliseconds(100))
            try reader.fixtureScript("ROLLBACK")
            let report = try await run.value

            let outcomes = Dictionary(uniqueKeysWithValues: report.entries.map { ($0.tenant, $0) })
            #expect(outcomes["f001"]?.outcome == .failed && outcomes["f001"]?.sqlState == "42703")
            #expect(outcomes["f002"]?.outcome == .failed && outcomes["f002"]?.sqlState == "42703")
            #expect(outcomes["f003"]?.outcome == .migrated, "f003: \(outcomes["f003"].map { "\($0.outcome) \($0.error ?? "")" } ?? "none")")
            #expect(report.notStarted == 7)
            #expect(report.interrupted)
            let versions = try connection.tenantVersions()
            #expect(versions["f003"]?.version == "v3")
            #expect(versions["f001"]?.version == "v1" && versions["f001"]?.state == "failed")
        }
    }

    /// A worker whose connection dies (here: its backend terminated while it waits on a lock)
    /// reports that tenant failed, reconnects, and goes on: it does not fail every tenant it
    /// takes afterwards on the dead connection.
    @Test func aLostConnectionCostsOnlyTheTenantItWasMigrating() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, _, connection) = try await recipesFleet(conninfo, "d", 16, recipes: 3, lockTimeout: .seconds(60))
            let reader = try Connection(conninfo, logger: quietLogger)
            try reader.fixtureScript("BEGIN; SELECT count(*) FROM tenant_d001.recipe")

            let run = Task { try await migrator.migrateAll(jobs: 2) }
            #expect(try await Self.waitForLockWait(connection))
            for pid in try connection.lockWaiters() {
                try connection.execute("SELECT pg_terminate_backend($1)", [pid])
            }
            let report = try await run.value
            try reader.fixtureScript("ROLLBACK")

            #expect(report.entries.first { $0.tenant == "d001" }?.outcome == .failed)
            #expect(report.failed == 1, "failed: \(report.entries.filter { $0.outcome == .failed }.map(\.tenant))")
            #expect(report.migrated == 15)
            #expect(report.notStarted == 0)
            let versions = try connection.tenantVersions()
            #expect(versions["d001"]?.version == "v1")
            #expect(versions.filter { $0.value.version == "v3" }.count == 15)

            let rerun = try await migrator.migrateAll(jobs: 2)
            #expect(rerun.succeeded && rerun.migrated == 1)
        }
    }

    /// A worker opens a new session every `tenantsPerSession` tenants, so no backend's caches
    /// grow with the whole run; every tenant is still migrated once, and none waits on another.
    @Test func aWorkerRenewsItsSessionEveryFewTenants() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (logger, store) = RecordingLogHandler.logger(level: .debug)
            var migrator = try makeRecipesMigrator(conninfo, logger: logger)
            _ = try await migrator.createTenants(names("s", 12), version: "v1", jobs: 2)
            migrator.tenantsPerSession = 3
            store.removeAll()
            let report = try await migrator.migrateAll(jobs: 2)
            #expect(report.migrated == 12 && report.succeeded)
            // The backend each tenant's statements ran on, from the statement log.
            var backends: [String: Set<String>] = [:]
            for entry in store.entries where entry.level == .debug {
                guard let tenant = entry.metadata["tenant"].map({ "\($0)" }), let pid = entry.metadata["pid"].map({ "\($0)" }) else { continue }
                backends[pid, default: []].insert(tenant)
            }
            #expect(backends.values.reduce(0) { $0 + $1.count } == 12, "each tenant on one backend: \(backends)")
            #expect(backends.values.allSatisfy { $0.count <= 3 }, "\(backends)")
            #expect(backends.count >= 4, "\(backends)")
            let versions = try Connection(conninfo, logger: quietLogger).tenantVersions()
            #expect(versions.values.allSatisfy { $0.version == "v3" && $0.state == "ready" })
        }
    }

    /// More --jobs than the server lets this role open: the run goes on with the connections it
    /// got instead of failing before any tenant. (Needs a server where the tests may create roles.)
    @Test(.enabled(if: ProcessInfo.processInfo.environment["TEST_DATABASE_URL"] == nil, "creates a role on the embedded test server"))
    func moreJobsThanConnectionsGoesOnWithFewer() async throws {
        let role = "fleet_limited_" + UUID().uuidString.prefix(8).lowercased()
        let server = try await TestPostgres.server()
        let admin = try Connection(server.adminConnectionString, logger: quietLogger)
        try admin.execute(unsafeSQL: "CREATE ROLE \(admin.quoteIdentifier(role)) LOGIN")
        defer { _ = try? admin.execute(unsafeSQL: "DROP ROLE IF EXISTS \(admin.quoteIdentifier(role))") }
        try await TestPostgres.withDatabaseURL { conninfo in
            let connection = try Connection(conninfo, logger: quietLogger)
            try connection.execute(unsafeSQL: "ALTER DATABASE \(connection.quoteIdentifier(try connection.scalar("SELECT current_database()::text", as: String.self))) OWNER TO \(connection.quoteIdentifier(role))")
            let limited = conninfo + " user='\(role)'"
            let migrator = try makeRecipesMigrator(limited)
            let tenants = names("j", 8)
            #expect(try await migrator.createTenants(tenants, version: "v1", jobs: 2).migrated == 8)
            await migrator.shutdown()  // its pooled sessions close
            try connection.execute(unsafeSQL: "ALTER ROLE \(connection.quoteIdentifier(role)) CONNECTION LIMIT 2")
            #expect(try await waitUntil {
                try connection.scalar("SELECT count(*)::int FROM pg_stat_activity WHERE usename = $1", [role], as: Int.self) == 0
            })

            let report = try await makeRecipesMigrator(limited).migrateAll(jobs: 4)
            #expect(report.succeeded)
            #expect(report.migrated == 8)
        }
    }

    // MARK: - Selection

    @Test func matchLimitAndNamedTenantsThenRollBackEveryTenant() async throws {
        try await TestPostgres.withRecipesMigrator { conninfo, migrator in
            let tenants = names("alpha", 5) + names("beta", 5) + names("gamma", 5)
            _ = try await migrator.createTenants(tenants, version: "v1", jobs: 4)
            try Connection(conninfo, logger: quietLogger).loadRecipes(tenants: ["alpha001", "beta001", "gamma003"], recipes: 5)
            let connection = try Connection(conninfo, logger: quietLogger)
            let ingredientsQuery = "SELECT md5(string_agg(concat_ws('|', id, recipe_id, name, quantity, unit_of_measure), ',' ORDER BY id)) FROM tenant_gamma003.recipe_ingredient"
            let ingredientsAtV1: String = try connection.scalar(ingredientsQuery)
            func atV3() throws -> [String] {
                try connection.tenantVersions().filter { $0.value.version == "v3" }.map(\.key).sorted()
            }

            #expect(try await runTenantMigrate(conninfo, ["migrate", "--match", "beta*", "--jobs", "2"]) == 0)
            #expect(try atV3() == names("beta", 5))

            // A canary batch: the first two tenants that need work, in name order.
            #expect(try await runTenantMigrate(conninfo, ["migrate", "--all", "--limit", "2"]) == 0)
            #expect(try atV3() == ["alpha001", "alpha002"] + names("beta", 5))

            #expect(try await runTenantMigrate(conninfo, ["migrate", "--all", "--tenant", "gamma002", "--tenant", "gamma004"]) == 0)
            #expect(try atV3() == ["alpha001", "alpha002"] + names("beta", 5) + ["gamma002", "gamma004"])

            // Named tenants without --all: one by one.
            #expect(try await runTenantMigrate(conninfo, ["migrate", "--tenant", "gamma001", "--tenant", "gamma003"]) == 0)
            #expect(try atV3() == ["alpha001", "alpha002"] + names("beta", 5) + ["gamma001", "gamma002", "gamma003", "gamma004"])

            // An unknown name is a failure, and touches nothing.
            #expect(try await runTenantMigrate(conninfo, ["migrate", "--all", "--tenant", "nosuch"]) == 1)
            #expect(try atV3().count == 11)

            #expect(try await runTenantMigrate(conninfo, ["migrate", "--all", "--jobs", "3"]) == 0)
            #expect(try atV3() == tenants.sorted())

            // v3 → v1 drops prep_minutes: with --no-archive, refused without --allow-destructive.
            #expect(try await runTenantMigrate(conninfo, ["rollback", "--all", "--to", "v1", "--no-archive"]) == 1)
            #expect(try atV3() == tenants.sorted())
            #expect(try connection.tenantVersions().values.allSatisfy { $0.state == "ready" })

            #expect(try await runTenantMigrate(conninfo, ["rollback", "--all", "--to", "v2", "--allow-destructive", "--jobs", "2"]) == 0)
            #expect(try connection.tenantVersions().values.allSatisfy { $0 == ("v2", "ready") })
            #expect(try await migrator.verify().allSatisfy(\.isClean))
            // The ingredients' names and units are back, row for row.
            #expect(try connection.scalar(ingredientsQuery, as: String.self) == ingredientsAtV1)
        }
    }

    // MARK: - Nothing to do

    @Test func aRunOverTwoThousandCurrentTenantsIsOneQuery() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let tenants = (1...2000).map { "n" + String(format: "%04d", $0) }
            let created = try await makeRecipesMigrator(conninfo).createTenants(tenants, jobs: 4)
            #expect(created.migrated == 2000)

            // A second migrator over the same catalog, logging every statement it sends (debug).
            let (logger, log) = RecordingLogHandler.logger(level: .debug)
            let migrator = try makeRecipesMigrator(conninfo, logger: logger)
            let report = try await migrator.migrateAll(jobs: 4)
            #expect(report.skipped == 2000)
            #expect(report.succeeded)
            // Skipped from the catalog query alone: no tenant reached a runner.
            #expect(report.entries.allSatisfy { $0.outcome == .skipped && $0.milliseconds == 0 })
            // The statements sent, counted rather than timed: the session's set-up and the catalog's
            // checks, the same for 2 tenants as for 2,000; none names a tenant.
            let statements = log.entries.filter { $0.level == .debug && $0.metadata["pid"] != nil }.map(\.message)
            #expect(!statements.isEmpty && statements.count < 20, "\(statements.count) statements:\n\(statements.joined(separator: "\n"))")
            #expect(!statements.contains { $0.contains("n0001") || $0.contains("tenant_n") }, "\(statements)")
        }
    }
}
