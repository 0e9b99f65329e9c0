import ArgumentParser
import Dispatch
import EntityModel
import Foundation
import LibPQ
import Logging
import MigrationEngine
import RecipesPolicies
import TenantMigrator
import TypedSQL

/// `tenant-migrate-bench fleet`: a deployment-time run over many tenants.
///
/// - default: N tenants at Recipes v1 with R recipes of K ingredients each, migrated v1 → v3 by
///   `migrateAll(jobs:)`, against ONE hand-written psql script applying the same change to an
///   identical set of tenants (one transaction per tenant, as a DBA would write it), and against
///   the same script split over `jobs` psql sessions. Then a profile of the tool on a few more
///   tenants, one at a time: the time of every statement it sends, grouped by kind.
/// - `--noop`: N tenants already at the latest version; `migrateAll` has nothing to do.
///
/// Every run gets a database of its own, dropped at the end. It prints numbers; it asserts nothing
/// (it checks that the tool and the script leave the same data and the v3 schema).
struct FleetBenchmark: AsyncParsableCommand, TenantContentsDefaults {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Time migrateAll over a fleet of tenants (v1 → v3) against a hand-written psql script, or a no-op run (--noop)."
    )

    @Flag(help: "Time a run over tenants already at the latest version (default 10,000 tenants).")
    var noop = false

    @Flag(help: "With --noop: make the tenants' catalog rows with SQL, without schemas (default 1,000,000 tenants), and also time `tenant-migrate migrate --all` as a process over them.")
    var catalogOnly = false

    @Option(help: "Tenants per set (default 1,000; 10,000 with --noop; 1,000,000 with --noop --catalog-only).")
    var tenants: Int?

    @OptionGroup var contents: TenantContents<Self>

    @Option(name: [.short, .long], help: "Connections used at once by the tool (and psql sessions in the split run).")
    var jobs = 2

    @Option(help: "No-op runs (--noop); the best and the median are reported.")
    var repetitions = 3

    @Option(help: "Tenants migrated one at a time with every statement timed (0 to skip the profile).")
    var profileTenants = 50

    @Flag(inversion: .prefixedNo, help: "Also time the psql script split over --jobs sessions.")
    var splitPsql = true

    @Option(help: "Rounds: each migrates the next slice of the tenants on every side (tool, psql, psql split), in a rotating order.")
    var rounds = 4

    @Option(help: "Tenants the tool migrates on one session before it opens a new one (0: one session per worker for the whole run; default: the library's).")
    var tenantsPerSession: Int?

    @Flag(help: "Migrate by the family's declarative v2 → v3 mapping (Mappings/Declarative, no Swift) rather than its two Swift policies.")
    var declarative = false

    @OptionGroup var family: FamilyOptions

    @OptionGroup var database: DatabaseOptions

    static let recipesPerTenant = 100

    func run() async throws {
        let count = tenants ?? (noop ? (catalogOnly ? 1_000_000 : 10_000) : 1_000)
        guard !catalogOnly || noop else { throw ValidationError("--catalog-only goes with --noop") }
        guard count > 0, contents.recipes > 0, contents.ingredients > 0, jobs > 0, repetitions > 0, rounds > 0, profileTenants >= 0 else {
            throw ValidationError("counts, --jobs and --repetitions must be positive")
        }
        let logger = quietLogger()
        let database = try self.database.open(noop ? "tm_bench_fleet_noop" : "tm_bench_fleet", kind: "fleet", logger: logger)
        defer { database.close() }
        func makeMigrator() throws -> TenantMigrator {
            try TenantMigrator(connectionString: database.conninfo, familyDirectory: family.url,
                               mappingsDirectory: declarative ? family.url.appendingPathComponent("Mappings/Declarative") : nil,
                               policies: RecipesPolicies.registry, logger: logger)
        }
        if noop {
            let connection = try Connection(database.conninfo, logger: logger)
            print(try FleetBench.serverDescription(connection))
            try await runNoop(count: count, migrator: try makeMigrator(), connection: connection, database: database)
        } else {
            // The setup's sessions are closed before the timed rounds: an idle session that touched
            // every tenant's tables would work through each invalidation the migrations' DDL sends
            // (its caches hold thousands of tables), on one of the two cores, during every round.
            let setup = try makeMigrator()
            let names = try await setUp(count: count, migrator: setup, database: database)
            await setup.shutdown()
            let connection = try Connection(database.conninfo, logger: logger)
            var migrator = try makeMigrator()
            if let tenantsPerSession { migrator.tenantsPerSession = tenantsPerSession > 0 ? tenantsPerSession : nil }
            try await runMigration(count: count, names: names, migrator: migrator, connection: connection, database: database)
        }
    }

    // MARK: - v1 → v3

    /// The tenants of every set, created at v1 and filled (every set identical: tenant i of each
    /// holds the same rows), on sessions of their own; returns the sets and the profile's names.
    private func setUp(count: Int, migrator: TenantMigrator, database: BenchDatabase) async throws -> (sets: [(prefix: String, label: String)], profile: [String]) {
        let connection = try Connection(database.conninfo, logger: quietLogger())
        print(try FleetBench.serverDescription(connection))
        let clock = ContinuousClock()
        let sets: [(prefix: String, label: String)] = [("tool_", "tool"), ("psql_", "psql")] + (splitPsql ? [("psqlx_", "psql split")] : [])
        let profileNames = FleetBench.names("prof_", profileTenants)
        var all: [String] = []
        for set in sets { all += FleetBench.names(set.prefix, count) }
        all += profileNames

        let createStart = clock.now
        let created = try await migrator.createTenants(all, version: "v1", jobs: jobs)
        let creation = clock.now - createStart
        guard created.migrated == all.count else { throw BenchError("created \(created.migrated) of \(all.count) tenants") }
        let loadStart = clock.now
        for name in all {
            let index = Int(name.split(separator: "_").last!)!
            try connection.pipeline(contents.loadStatements(schema: "tenant_" + name, index: index, quoting: connection).map { Statement(unsafeSQL: $0) })
        }
        let load = clock.now - loadStart
        try connection.execute("VACUUM ANALYZE")
        _ = try? connection.execute("CHECKPOINT")
        let rows = try connection.execute("SELECT (SELECT count(*) FROM tenant_tool_0001.recipe), (SELECT count(*) FROM tenant_tool_0001.recipe_ingredient)")[0]
        print("""
            setup: \(format(count: all.count)) tenants at v1 created in \(format(creation)); \
            \(try rows.decode(Int.self, at: 0)) recipes and \(try rows.decode(Int.self, at: 1)) recipe ingredients each, loaded in \(format(load)) \
            (one INSERT … SELECT round trip per tenant); VACUUM ANALYZE, CHECKPOINT; the setup's sessions closed
            """)
        return (sets, profileNames)
    }

    private func runMigration(
        count: Int, names setUp: (sets: [(prefix: String, label: String)], profile: [String]), migrator: TenantMigrator, connection: Connection,
        database: BenchDatabase
    ) async throws {
        let psql = try database.server.program("psql")
        let clock = ContinuousClock()
        let sets = setUp.sets
        let profileNames = setUp.profile

        // The three sides, in rounds: each round migrates the next slice of every set, the sides in
        // a rotating order, so that a machine whose load drifts (other builds, the disk) weighs on
        // each side alike. A CHECKPOINT before each slice, so none pays for the one before.
        let v3 = migrator.family.latestVersion
        let psqlRun = PsqlRun(psql: psql, conninfo: database.conninfo, version: v3, quoting: connection)
        let slices = (0..<rounds).map { round in (count * round / rounds + 1)...(count * (round + 1) / rounds) }.filter { !$0.isEmpty }
        var tool = Duration.zero, psqlTime = Duration.zero, split = Duration.zero
        var toolCPU = 0.0
        // The server's CPU for each side (nil for a server elsewhere).
        let serverCPU = ServerCPU(connection)
        var serverSeconds: [String: Double] = [:]
        var perTenant: [Double] = []
        for (round, slice) in slices.enumerated() {
            func names(_ prefix: String) -> [String] { slice.map { prefix + String(format: "%04d", $0) } }
            let sides = ["tool", "psql"] + (splitPsql ? ["split"] : [])
            for side in sides[(round % sides.count)...] + sides[..<(round % sides.count)] {
                _ = try? connection.execute("CHECKPOINT")
                let serverBefore = serverCPU?.seconds() ?? 0
                defer {
                    // A psql session's backend is counted once the postmaster has reaped it.
                    if side != "tool" { FleetBench.waitForPsqlSessionsToEnd(connection) }
                    serverSeconds[side, default: 0] += (serverCPU?.seconds() ?? 0) - serverBefore
                }
                switch side {
                case "tool":
                    let cpuBefore = FleetBench.processCPUSeconds()
                    let start = clock.now
                    let report = try await migrator.migrateAll(selection: TenantSelection(names: names("tool_")), jobs: jobs)
                    tool += clock.now - start
                    toolCPU += FleetBench.processCPUSeconds() - cpuBefore
                    guard report.migrated == slice.count, report.succeeded else {
                        throw BenchError("tool: \(report.migrated) migrated, \(report.failed) failed: \(report.entries.first { $0.error != nil }?.error ?? "")")
                    }
                    perTenant += report.entries.map(\.milliseconds)
                case "psql":
                    psqlTime += try psqlRun.run([names("psql_")])
                default:
                    let names = names("psqlx_")
                    split += try psqlRun.run((0..<jobs).map { part in stride(from: part, to: names.count, by: jobs).map { names[$0] } })
                }
            }
        }
        perTenant.sort()
        let splitTime: Duration? = splitPsql ? split : nil

        // Same data and the v3 schema, whichever way.
        let samples = Array(Set(stride(from: 1, through: count, by: max(1, count / 10)).map { $0 } + [count])).sorted()
        for index in samples {
            let suffix = String(format: "%04d", index)
            let reference = try FleetBench.checksum(schema: "tenant_tool_" + suffix, on: connection)
            for set in sets.dropFirst() {
                let other = try FleetBench.checksum(schema: "tenant_\(set.prefix)\(suffix)", on: connection)
                guard other == reference else { throw BenchError("\(set.label) tenant \(index) differs from the tool's: \(other) vs \(reference)") }
            }
        }
        let checked = sets.flatMap { set in samples.map { set.prefix + String(format: "%04d", $0) } }
        let drifted = try await migrator.verify(tenants: checked).filter { !$0.isClean }
        guard drifted.isEmpty else { throw BenchError("not at v3: \(drifted.map { "\($0.tenant): \($0.differences) \($0.hashMismatch ?? "")" })") }

        // Where the tool's time goes: a few more tenants, one at a time, every statement timed.
        var profile: FleetBench.Profile?
        if !profileNames.isEmpty {
            let recorder = FleetBench.StatementRecorder()
            var profiled = TenantMigrator(connectionString: migrator.connectionString, family: migrator.family, catalog: migrator.catalog,
                                      mappings: migrator.mappings, logger: recorder.logger())
            profiled.policies = migrator.policies
            let start = clock.now
            let profileReport = try await profiled.migrateAll(selection: TenantSelection(pattern: "prof_*"), jobs: 1)
            let elapsed = clock.now - start
            guard profileReport.migrated == profileNames.count else { throw BenchError("profile run: \(profileReport.failed) failed") }
            profile = recorder.profile(total: elapsed, tenants: profileNames.count)
            // The client's share the runner repeats for every tenant: planning v1 → v3 (with the
            // mapped step's schema diff) and checking it for destructive changes.
            let planner = migrator.planner
            let plannings = 100
            profile?.planning = try measure {
                for _ in 0..<plannings { _ = try planner.plan(from: "v1", to: "v3").destructiveChanges }
            } / plannings
        }

        let ratio = tool.inSeconds / psqlTime.inSeconds
        func pct(_ p: Double) -> String { String(format: "%.1f", perTenant[min(perTenant.count - 1, Int(Double(perTenant.count) * p))]) }
        var lines = [
            "",
            "== fleet: Recipes v1 → v3 over \(format(count: count)) tenants (\(contents.recipes) recipes × \(contents.ingredients) ingredients each), "
                + "in \(slices.count) rounds of \(format(count: slices.first?.count ?? 0)) tenants per side, the sides' order rotating; v2 → v3 "
                + (declarative ? "by the declarative mapping (Mappings/Declarative)" : "by the family's mapping and its two Swift policies"),
            "tool (migrateAll, jobs \(jobs)):        \(format(tool))  (\(String(format: "%.1f", tool.inSeconds * 1000 / Double(count))) ms per tenant; "
                + "per-tenant latency p50 \(pct(0.5)) ms, p95 \(pct(0.95)) ms; client CPU \(String(format: "%.2f", toolCPU)) s; "
                + (migrator.tenantsPerSession.map { "a new session every \($0) tenants)" } ?? "one session per worker)"),
            FleetBench.dbaScriptSummary(v3, quoting: connection),
            "psql -f script.sql (one session): \(format(psqlTime))  (\(String(format: "%.1f", psqlTime.inSeconds * 1000 / Double(count))) ms per tenant)",
        ]
        if let splitTime {
            lines.append("psql, \(jobs) sessions in parallel:     \(format(splitTime))  (\(String(format: "%.1f", splitTime.inSeconds * 1000 / Double(count))) ms per tenant)")
        }
        lines.append(String(format: "ratio tool / psql (one session): %.2f (target <= 1.50)%@", ratio, ratio <= 1.5 ? "" : "  ABOVE TARGET"))
        if let splitTime {
            lines.append(String(format: "ratio tool / psql (%d sessions):  %.2f", jobs, tool.inSeconds / splitTime.inSeconds))
        }
        if serverCPU != nil {
            func perTenant(_ side: String) -> String { String(format: "%.1f ms", (serverSeconds[side] ?? 0) * 1000 / Double(count)) }
            lines.append("server CPU per tenant (every PostgreSQL process, from /proc; the same whatever the load): tool \(perTenant("tool")), "
                + "psql \(perTenant("psql"))" + (splitPsql ? ", psql split \(perTenant("split"))" : "")
                + String(format: "; tool client CPU %.1f ms", toolCPU * 1000 / Double(count)))
        }
        lines.append("checks: tenants \(samples.map(String.init).joined(separator: ", ")) of every set hold the same data, and verify clean at v3")
        if let profile { lines += profile.lines() }
        print(lines.joined(separator: "\n"))
    }
}

/// Helpers shared by the fleet and create benchmarks.
enum FleetBench {
    /// Waits (up to 5 s) until no psql session is connected to `connection`'s database, and a moment more.
    static func waitForPsqlSessionsToEnd(_ connection: Connection) {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline, let sessions = try? connection.execute(
            "SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'psql'"
        ).first?.decode(Int.self, at: 0), sessions > 0 {
            Thread.sleep(forTimeInterval: 0.01)
        }
        Thread.sleep(forTimeInterval: 0.05)
    }

    /// `prefix0001`, `prefix0002`, …
    static func names(_ prefix: String, _ count: Int) -> [String] {
        count == 0 ? [] : (1...count).map { prefix + String(format: "%04d", $0) }
    }

    /// `server: PostgreSQL 15.x; fsync on, synchronous_commit on, …`
    static func serverDescription(_ connection: Connection) throws -> String {
        let names = ["server_version", "fsync", "synchronous_commit", "full_page_writes", "wal_level", "shared_buffers", "max_connections"]
        let values = try names.map { try connection.execute("SELECT current_setting($1)", [$0])[0].decode(String.self, at: 0) }
        return "server: PostgreSQL " + zip(names, values).dropFirst().reduce(values[0]) { $0 + ", \($1.0) \($1.1)" }
            + "; \(ProcessInfo.processInfo.activeProcessorCount) cores"
    }

    /// User + system CPU time of this process.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// Errors from concurrent work.
    final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private var all: [String] = []
        func add(_ failure: String) { lock.lock(); all.append(failure); lock.unlock() }
        var first: String? { lock.lock(); defer { lock.unlock() }; return all.first }
    }

    // MARK: Statement profile

    /// Records every statement LibPQ logs (at debug level, just before sending it) with the time,
    /// per backend; a statement's cost is the time until the next one on the same connection.
    final class StatementRecorder: @unchecked Sendable {
        /// One statement sent: its backend, text, time, the tenant it was sent for (the runner's
        /// logger metadata) and whether it followed another in the same pipeline (same round trip).
        struct Record { let pid: String; let sql: String; let at: ContinuousClock.Instant; let tenant: String?; let pipelined: Bool }
        private let lock = NSLock()
        private var records: [Record] = []

        func add(_ record: Record) { lock.lock(); records.append(record); lock.unlock() }

        func logger() -> Logger {
            var logger = Logger(label: "tenant-migrate-bench.profile") { _ in RecordingLogHandler(recorder: self) }
            logger.logLevel = .debug
            return logger
        }

        func profile(total: Duration, tenants: Int) -> Profile {
            lock.lock()
            let all = records
            lock.unlock()
            var groups: [String: (count: Int, time: Duration)] = [:]
            let byPID = Dictionary(grouping: all.indices, by: { all[$0].pid })
            for indexes in byPID.values {
                for (position, index) in indexes.enumerated() {
                    let end = position + 1 < indexes.count ? all[indexes[position + 1]].at : all[index].at
                    let key = Self.kind(of: all[index].sql)
                    groups[key, default: (0, .zero)].count += 1
                    groups[key, default: (0, .zero)].time += end - all[index].at
                }
            }
            var profile = Profile(total: total, tenants: tenants, statements: all.count, groups: groups)
            profile.roundTrips = all.count { !$0.pipelined }
            let perTenant = Dictionary(grouping: all.filter { $0.tenant != nil }, by: { $0.tenant! })
            profile.tenantStatements = perTenant.values.map(\.count).sorted()
            profile.tenantRoundTrips = perTenant.values.map { $0.count { !$0.pipelined } }.sorted()
            if let first = perTenant.keys.sorted().first {
                profile.trace = perTenant[first]!.map { ($0.pipelined ? "     + " : "  RT → ") + Self.kind(of: $0.sql) }
                profile.tracedTenant = first
            }
            return profile
        }

        /// The statement with its tenant schema, literals and numbers blanked, shortened.
        static func kind(of sql: String) -> String {
            var text = sql.replacingOccurrences(of: "\n", with: " ")
            text = text.replacingOccurrences(of: #""tenant_[a-z0-9_]+""#, with: "<s>", options: .regularExpression)
            text = text.replacingOccurrences(of: #"'[^']*'"#, with: "'…'", options: .regularExpression)
            text = text.replacingOccurrences(of: #"\b[0-9]+\b"#, with: "N", options: .regularExpression)
            text = text.replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression)
            return String(text.prefix(96))
        }
    }

    struct RecordingLogHandler: LogHandler {
        let recorder: StatementRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let now = ContinuousClock.now
            guard event.level == .debug, event.source == "LibPQ", let pid = event.metadata?["pid"] ?? metadata["pid"] else {
                if event.level >= .warning { FileHandle.standardError.write(Data("\(event.level): \(event.message)\n".utf8)) }
                return
            }
            let tenant = event.metadata?["tenant"] ?? metadata["tenant"]
            recorder.add(.init(pid: "\(pid)", sql: event.message.description, at: now, tenant: tenant.map { "\($0)" },
                               pipelined: event.metadata?["pipelined"] != nil))
        }
    }

    struct Profile {
        let total: Duration
        let tenants: Int
        let statements: Int
        let groups: [String: (count: Int, time: Duration)]
        /// Client CPU for one tenant's plan and destructive-change check.
        var planning: Duration = .zero
        /// Round trips in all (statements not pipelined behind another).
        var roundTrips = 0
        /// Statements and round trips sent for each tenant (logged with the tenant's name), sorted.
        var tenantStatements: [Int] = []
        var tenantRoundTrips: [Int] = []
        /// Every statement of one tenant, in order, each round trip marked.
        var trace: [String] = []
        var tracedTenant = ""

        func lines() -> [String] {
            let perTenant = total.inSeconds * 1000 / Double(tenants)
            func range(_ values: [Int]) -> String { values.first == values.last ? "\(values.first ?? 0)" : "\(values.first ?? 0)-\(values.last ?? 0)" }
            var lines = [
                "profile: \(tenants) more tenants, jobs 1 (statement logging on): \(format(total)), "
                    + String(format: "%.1f ms per tenant, %.1f statements and %.1f round trips per tenant in all (the fleet's own catalog queries included); ",
                             perTenant, Double(statements) / Double(tenants), Double(roundTrips) / Double(tenants))
                    + "sent for each tenant (counted from LibPQ's statement log, each pipelined statement counted): "
                    + "\(range(tenantStatements)) statements in \(range(tenantRoundTrips)) round trips; "
                    + "time from sending each statement to sending the next, per tenant:",
            ]
            lines.append(String(format: "  client CPU per tenant for plan(from: v1, to: v3) + destructiveChanges: %.2f ms (inside the first catalog read's slot below)", planning.inSeconds * 1000))
            for (kind, value) in groups.sorted(by: { $0.value.time > $1.value.time }).prefix(28) {
                lines.append(String(format: "  %6.2f ms  %4.1f×  ", value.time.inSeconds * 1000 / Double(tenants), Double(value.count) / Double(tenants)) + kind)
            }
            if !trace.isEmpty {
                lines.append("every statement sent for tenant \(tracedTenant), in order (RT →: a new round trip; +: in the same pipeline):")
                lines += trace
            }
            return lines
        }
    }
}
