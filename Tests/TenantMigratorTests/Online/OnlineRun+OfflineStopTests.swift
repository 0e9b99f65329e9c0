import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// A fleet run asked to go online reaches a tenant it runs offline after all (``OnlineRun``'s
/// offline choice: a tenant no bigger than `--online-above`, or a catalog-only plan), and is
/// stopped while that tenant's offline transaction is in flight. The tenant is rolled back and
/// reported as a plain offline fleet reports a stopped tenant (not started, no error), its catalog
/// row still ready at v1 with no failure recorded; the tenants not begun are not started.
///
/// Each run is held at a known point by a lock another session holds, never by timing:
/// - waiting for the tenant's tables (a reader holds them): the first stop ends the wait;
/// - every step run, its history row waiting to go in with the `COMMIT` (another session holds
///   the history table in SHARE mode): the first stop lets it finish, the second cancels it.
@Suite("Online runs run offline, and fleet stops")
struct OnlineRunOfflineStopTests {
    /// How the fleet runs its tenants.
    enum Way: String, Sendable, CaseIterable {
        /// `--online-above 1000`: Recipes tenants of 20 rows each run offline.
        case small
        /// `--online`: Renames v1 → v2 only renames (catalog-only), run offline.
        case catalogOnly
        /// No online option: the plain offline fleet the other two must agree with.
        case offline

        var directory: URL {
            self == .catalogOnly ? PackagePaths.root.appendingPathComponent("Tests/MigrationEngineTests/Fixtures/Renames") : recipesDirectory
        }

        var request: MigrationRequest {
            switch self {
            case .small: .migrate(to: "v2", online: .above(rows: 1000))
            case .catalogOnly: .migrate(to: "v2", online: .on)
            case .offline: .migrate(to: "v2")
            }
        }

        /// The same request on the command line.
        var options: [String] {
            switch self {
            case .small: ["--online-above", "1000"]
            case .catalogOnly: ["--online"]
            case .offline: []
            }
        }

        /// A table of every tenant at v1.
        var table: String { self == .catalogOnly ? "writer" : "recipe" }

        /// The migrator of the family, every lock waited on for a minute: only a stop ends a wait.
        func migrator(_ conninfo: String) throws -> TenantMigrator {
            var migrator = self == .catalogOnly
                ? try TenantMigrator(connectionString: conninfo, familyDirectory: directory, logger: .quiet("OnlineOfflineStop"))
                : try makeRecipesMigrator(conninfo)
            migrator.lockTimeout = .seconds(60)
            return migrator
        }

        /// Fills the tenants (at v1) with a few rows.
        func fill(_ tenants: [String], on connection: Connection) throws {
            guard self == .catalogOnly else { return try connection.loadRecipes(tenants: tenants, recipes: 5) }
            for tenant in tenants {
                try connection.execute("INSERT INTO \(id: "tenant_" + tenant).writer (name) SELECT 'Writer ' || g FROM generate_series(1, 3) AS g")
            }
        }
    }

    /// Where the tenant in flight is held when the fleet is stopped.
    enum Point: String, Sendable, CaseIterable {
        /// Waiting for its tables, which a reader holds.
        case waitingForTables
        /// Its tables locked and its steps run, its history row waiting for the history table.
        case committing

        /// The stops that end the tenant's run there: one ends a wait for locks; a tenant past
        /// them finishes unless a second stop cancels it.
        var stops: Int { self == .waitingForTables ? 1 : 2 }

        /// Opens a session that holds what the tenant waits for at this point.
        func hold(_ tenants: [String], _ way: Way, conninfo: String) throws -> Connection {
            let blocker = try Connection(conninfo, logger: .quiet("OnlineOfflineStop"))
            switch self {
            case .waitingForTables:
                let reads = tenants.map { "SELECT count(*) FROM tenant_\($0).\(way.table)" }
                try blocker.fixtureScript((["BEGIN"] + reads).joined(separator: "; "))
            case .committing:
                try blocker.fixtureScript("BEGIN; LOCK TABLE tenant_migrator.migration_history IN SHARE MODE")
            }
            return blocker
        }
    }

    static let tenants = ["t1", "t2", "t3"]

    /// The three tenants at v1, filled; returns each one's table checksums.
    static func makeFleet(_ way: Way, _ migrator: TenantMigrator, _ connection: Connection) async throws -> [String: [String: String]] {
        let created = try await migrator.createTenants(tenants, version: "v1", jobs: 1)
        guard created.succeeded else { throw TestFailure("creating the fleet: \(created.entries)") }
        try way.fill(tenants, on: connection)
        var sums: [String: [String: String]] = [:]
        for tenant in tenants { sums[tenant] = try connection.tableChecksums(schema: "tenant_" + tenant, rowsOrderedBy: .text) }
        return sums
    }

    /// Waits until one session waits on a lock at `point` and returns the tenant it migrates: the
    /// one whose table it waits to lock, or whose tables it has locked (ACCESS EXCLUSIVE) while its
    /// history row waits for the history table. Judged by the lock it waits for, not by its
    /// statement's text: in a pipeline, a statement's locks may be waited for (at its Bind) while
    /// `pg_stat_activity` still shows the statement before it.
    static func tenantHeld(at point: Point, _ connection: Connection) async throws -> String {
        var held: [(schema: String, waitsFor: String)] = []
        let found = try await waitUntil {
            held = try connection.execute("""
                SELECT DISTINCT n.nspname::text, coalesce(w.relation::regclass::text, w.locktype) FROM pg_stat_activity AS a
                JOIN pg_locks AS w ON w.pid = a.pid AND NOT w.granted
                JOIN pg_locks AS l ON l.pid = a.pid AND l.mode = 'AccessExclusiveLock' AND l.granted = $1
                JOIN pg_class AS c ON c.oid = l.relation JOIN pg_namespace AS n ON n.oid = c.relnamespace
                WHERE a.datname = current_database() AND n.nspname LIKE 'tenant\\_%'
                """, [point == .committing]).map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) }
            guard held.count == 1, let (schema, waitsFor) = held.first else { return false }
            return waitsFor.hasPrefix(point == .committing ? "tenant_migrator.migration_history" : schema + ".")
        }
        guard found, let schema = held.first?.schema else { throw TestFailure("no tenant held at \(point.rawValue): \(held)") }
        return String(schema.dropFirst("tenant_".count))
    }

    /// What the stop leaves: the run interrupted, every tenant not started (the one in
    /// flight too, as a plain fleet reports a stopped tenant: no error, no SQLSTATE), each exactly
    /// as it was at v1, ready, with no failure and no history row of the move.
    static func expectStopped(
        _ report: FleetReport, inFlight: String, before: [String: [String: String]], _ migrator: TenantMigrator, _ connection: Connection,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        #expect(report.interrupted, sourceLocation: sourceLocation)
        #expect(report.failed == 0 && report.migrated == 0, "\(report.entries)", sourceLocation: sourceLocation)
        #expect(report.entries.map(\.tenant).sorted() == tenants, sourceLocation: sourceLocation)
        for entry in report.entries {
            #expect(entry.outcome == .notStarted, "\(entry)", sourceLocation: sourceLocation)
            #expect(entry.fromVersion == "v1" && entry.toVersion == "v2", "\(entry)", sourceLocation: sourceLocation)
            #expect(entry.error == nil && entry.sqlState == nil && entry.online == nil, "\(entry)", sourceLocation: sourceLocation)
        }
        #expect(report.entries.contains { $0.tenant == inFlight }, sourceLocation: sourceLocation)

        let versions = try connection.tenantVersions()
        for tenant in tenants {
            #expect(versions[tenant]?.version == "v1" && versions[tenant]?.state == "ready", "\(tenant): \(String(describing: versions[tenant]))",
                    sourceLocation: sourceLocation)
            #expect(try connection.tableChecksums(schema: "tenant_" + tenant, rowsOrderedBy: .text) == before[tenant], "\(tenant)'s rows changed",
                    sourceLocation: sourceLocation)
        }
        let drifted = try await migrator.verify().filter { !$0.isClean }
        #expect(drifted.isEmpty, "drift: \(drifted.map { "\($0.tenant): \($0.differences)" })", sourceLocation: sourceLocation)
        let failures = try connection.column(
            "SELECT name || ': ' || last_error FROM tenant_migrator.tenants WHERE last_error IS NOT NULL", as: String.self
        )
        #expect(failures.isEmpty, "\(failures)", sourceLocation: sourceLocation)
        let history = try connection.column(
            "SELECT tenant || ' ' || outcome::text FROM tenant_migrator.migration_history WHERE to_version = 'v2' OR outcome = 'failed'", as: String.self
        )
        #expect(history.isEmpty, "history: \(history)", sourceLocation: sourceLocation)
        // Nothing was built in a shadow: every tenant ran (and was stopped) on the offline path.
        #expect(try connection.userSchemas().allSatisfy { !$0.hasPrefix("_tm_") }, sourceLocation: sourceLocation)
    }

    @Test(arguments: Way.allCases, Point.allCases)
    func aStopWhileATenantRunsOfflineLeavesItAsAPlainFleetDoes(way: Way, point: Point) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            var migrator = try way.migrator(conninfo)
            let shadowCheckpoints = Locked(0)
            migrator.settings.online.checkpoint = { _ in shadowCheckpoints.withLock { $0 += 1 } }
            let connection = try Connection(conninfo, logger: .quiet("OnlineOfflineStop"))
            let before = try await Self.makeFleet(way, migrator, connection)

            let blocker = try point.hold(Self.tenants, way, conninfo: conninfo)
            let control = FleetControl()
            let run = Task { [migrator] in try await migrator.moveAll(way.request, jobs: 1, control: control) }
            let inFlight = try await Self.tenantHeld(at: point, connection)
            for _ in 0..<point.stops { control.stop() }
            let report = try await run.value
            try blocker.fixtureScript("ROLLBACK")

            try await Self.expectStopped(report, inFlight: inFlight, before: before, migrator, connection)
            #expect(shadowCheckpoints.value == 0, "a tenant was built in a shadow")
        }
    }

    /// The other half of the race: one stop while the tenant waits to commit lets it finish, as a
    /// plain fleet lets a tenant in flight commit; only the tenants not begun are left.
    @Test(arguments: Way.allCases)
    func aFirstStopLetsATenantRunningOfflineFinish(way: Way) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try way.migrator(conninfo)
            let connection = try Connection(conninfo, logger: .quiet("OnlineOfflineStop"))
            _ = try await Self.makeFleet(way, migrator, connection)

            let blocker = try Point.committing.hold(Self.tenants, way, conninfo: conninfo)
            let control = FleetControl()
            let run = Task { [migrator] in try await migrator.moveAll(way.request, jobs: 1, control: control) }
            let inFlight = try await Self.tenantHeld(at: .committing, connection)
            control.stop()
            try blocker.fixtureScript("ROLLBACK")
            let report = try await run.value

            #expect(report.interrupted && report.failed == 0)
            let entry = try #require(report.entries.first { $0.tenant == inFlight })
            #expect(entry.outcome == .migrated && entry.error == nil, "\(entry)")
            let mode: String? = switch way {
            case .small: "offline"
            case .catalogOnly: "catalog-only"
            case .offline: nil
            }
            #expect(entry.online?.mode == mode, "\(entry)")
            #expect(report.entries.filter { $0.tenant != inFlight }.map(\.outcome) == [.notStarted, .notStarted], "\(report.entries)")
            let versions = try connection.tenantVersions()
            #expect(Self.tenants.map { versions[$0]?.version } == Self.tenants.map { $0 == inFlight ? "v2" : "v1" }, "\(versions)")
            #expect(versions.values.allSatisfy { $0.state == "ready" })
            let history = try connection.column(
                "SELECT tenant || ' ' || outcome::text FROM tenant_migrator.migration_history WHERE to_version = 'v2' OR outcome = 'failed'", as: String.self
            )
            #expect(history == ["\(inFlight) succeeded"], "history: \(history)")
            #expect(try await migrator.verify().allSatisfy(\.isClean))
        }
    }

    /// The same through `tenant-migrate migrate --all … --json`, stopped by SIGTERM (a deploy):
    /// the second signal is sent once the first is announced.
    @Test(.enabled(if: TenantMigrateExecutable.url != nil, "needs the tenant-migrate executable beside the test bundle"),
          arguments: [Way.small, .catalogOnly], Point.allCases)
    func theCommandLineSaysTheSame(way: Way, point: Point) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let migrator = try way.migrator(conninfo)
            let connection = try Connection(conninfo, logger: .quiet("OnlineOfflineStop"))
            let before = try await Self.makeFleet(way, migrator, connection)

            let blocker = try point.hold(Self.tenants, way, conninfo: conninfo)
            let running = try TenantMigrateExecutable.start(
                ["migrate", "--all", "--to", "v2", "--jobs", "1", "--lock-timeout", "60000", "--json"] + way.options
                    + ["--database-url", conninfo, "--migrations", way.directory.path]
            )
            let inFlight = try await Self.tenantHeld(at: point, connection)
            running.process.send(SIGTERM)
            if point.stops == 2 {
                #expect(try await waitUntil { try running.errorOutputSoFar().contains("interrupted: no new tenants start") })
                running.process.send(SIGTERM)
            }
            let output = try await running.finish()
            try blocker.fixtureScript("ROLLBACK")

            #expect(output.status == 130, "stderr: \(output.stderr)")
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let report = try decoder.decode(FleetReport.self, from: Data(output.stdout.utf8))
            try await Self.expectStopped(report, inFlight: inFlight, before: before, migrator, connection)
            // The document's error is the interruption, not a failure: no SQLSTATE.
            let document = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any]
            let error = document?["error"] as? [String: Any]
            #expect(error?["message"] as? String == "the run was interrupted: 3 tenants not started; run the same command again to finish",
                    "\(output.stdout)")
            #expect(error?["sqlState"] == nil || error?["sqlState"] is NSNull, "\(output.stdout)")
            #expect((document?["summary"] as? [String: Int])?["notStarted"] == 3, "\(output.stdout)")
        }
    }
}
