import ArgumentParser
import EntityModel
import Foundation
import LibPQ
import Logging
import MigrationEngine
import RecipesPolicies
import TenantMigrator
import TypedSQL

/// `tenant-migrate-bench online`: how long an app waits while one large Recipes tenant migrates,
/// offline and online, in one run.
///
/// For each size (RecipeIngredient rows; a tenth as many recipes), each direction (v2 → v3, and
/// v3 → v2 from a tenant taken to v3 offline first) and each way of mapping v2 → v3 (the declarative
/// distinct mappings of `Mappings/Declarative`, and the family's Swift policies), the tenant is
/// migrated once offline and once online (`--online`), each time on a fresh copy of the same rows,
/// while ``AppTraffic`` reads and writes the tenant `--rate` times a second each. It prints each
/// run's total time, the worst read and write wait, and, online, what the cutover held; then the
/// targets: online at the largest size, writes wait at most 1 s and reads at most `lock_timeout`,
/// no growth from the smallest size, and at most twice the offline time. It asserts nothing.
struct OnlineBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "online",
        abstract: "The app's worst waits while a large tenant migrates, offline and online (Recipes v2 → v3 and v3 → v2)."
    )

    @Option(help: "RecipeIngredient rows at each size, separated by commas; each size has a tenth as many recipes.")
    var sizes = "100000,1000000"

    @Option(help: "Statements a second of the app's reader, and of its writer.")
    var rate = 20.0

    @Option(help: "lock_timeout of the migrations, in ms.")
    var lockTimeout = 1000

    @Option(help: "Only these ways of v2 → v3, separated by commas (declarative, policies).")
    var ways = "declarative,policies"

    @Option(help: "Only these directions, separated by commas (up: v2 → v3, down: v3 → v2).")
    var directions = "up,down"

    @Flag(help: "For each online run, print the phases' times and the app's slowest statements with the phase each began in.")
    var traceWaits = false

    @OptionGroup var family: FamilyOptions
    @OptionGroup var database: DatabaseOptions

    /// One migration of one size, one direction, one way, one mode.
    struct Result {
        var rows: Int
        var path: String
        var way: String
        var online: Bool
        var total: Duration
        var traffic: AppTraffic.Report
        var progress: OnlineProgress?
        /// Online: whether the tenant ended as its offline twin (same rows, the app's writes
        /// replayed, migrated offline): every table's rows and the archive, compared by digest.
        var equalsTwin: Bool?
    }

    var rowCounts: [Int] {
        get throws {
            let counts = sizes.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "")) }
            guard !counts.isEmpty, counts.allSatisfy({ ($0 ?? 0) >= 10 }) else {
                throw ValidationError("--sizes takes row counts of 10 or more separated by commas, e.g. 100000,1000000")
            }
            return counts.map { $0! }
        }
    }

    /// The directions chosen, as (from, to).
    var paths: [(String, String)] {
        let chosen = Set(directions.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        return [("up", ("v2", "v3")), ("down", ("v3", "v2"))].filter { chosen.contains($0.0) }.map(\.1)
    }

    func validate() throws {
        _ = try rowCounts
        guard !paths.isEmpty else { throw ValidationError("--directions takes up, down or both separated by commas") }
        guard rate > 0, lockTimeout > 0 else { throw ValidationError("--rate and --lock-timeout must be positive") }
    }

    func run() async throws {
        var logger = quietLogger()
        // The runs' phases and each cutover's parts, to stderr.
        if traceWaits { logger.logLevel = .info }
        let database = try self.database.open("tm_bench_online", logger: logger)
        defer { database.close() }
        let connection = try Connection(database.conninfo, logger: logger)
        var migrator = try TenantMigrator(connectionString: database.conninfo, familyDirectory: family.url, policies: RecipesPolicies.registry, logger: logger)
        migrator.lockTimeout = .milliseconds(lockTimeout)
        // Recipes v2 → v3 both ways: the family's Swift policies (row-local: run again for the
        // changed rows, their rows made per key followed by key) and the declarative distinct
        // mappings (caught up by key).
        var declarative = try TenantMigrator(connectionString: database.conninfo, familyDirectory: family.url,
                                             mappingsDirectory: family.url.appendingPathComponent("Mappings/Declarative"),
                                             policies: RecipesPolicies.registry, logger: logger)
        declarative.lockTimeout = .milliseconds(lockTimeout)
        let chosen = Set(self.ways.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        let ways: [(name: String, migrator: TenantMigrator)] = [("declarative", declarative), ("policies", migrator)].filter { chosen.contains($0.0) }
        print("app: a reader and a writer, \(rate) statements a second each, on their own connections; lock_timeout \(lockTimeout) ms")
        for (name, migrator) in ways {
            let modes = try migrator.plan(from: "v2", to: "v3").steps.map { "\($0.onlineMode.kind.rawValue) (\($0.onlineMode.reason))" }
            print("v2 → v3 by \(name): online, \(modes.joined(separator: "; "))")
        }

        var results: [Result] = []
        for rows in try rowCounts {
            let data = try RecipesData.parse(["--ingredients", String(rows), "--recipes", String(max(1, rows / 10))])
            _ = try? await migrator.dropTenant("bench_online_source", confirmed: true)
            let source = try await migrator.createTenant("bench_online_source", version: "v2").schema
            let generation = try measure { try data.generate(into: source, on: connection) }
            print("\n== \(format(count: rows)) recipe ingredients, \(format(count: data.recipes)) recipes (generated in \(format(generation)))")
            for (name, way) in ways {
                for (from, to) in paths {
                    for online in [false, true] {
                        let result = try await measureRun(way, from: from, to: to, online: online, data: data, source: source, connection: connection)
                        // The way down is the family's own mapping; the way v2 → v3 was taken decides what the archive holds.
                        let label = from == "v2" ? name : "mapping (up by \(name))"
                        results.append(Result(rows: rows, path: "\(from) → \(to)", way: label, online: online, total: result.total,
                                              traffic: result.traffic, progress: result.progress, equalsTwin: result.equalsTwin))
                        print(Self.line(results.last!))
                    }
                }
            }
            try await migrator.dropTenant("bench_online_source", confirmed: true)
        }
        printSummary(results)
    }

    /// One migration on a fresh copy of the source rows, with the app at work.
    private func measureRun(_ migrator: TenantMigrator, from: String, to: String, online: Bool, data: RecipesData, source: String,
                            connection: Connection) async throws -> (total: Duration, traffic: AppTraffic.Report, progress: OnlineProgress?, equalsTwin: Bool?) {
        let tenant = "bench_online_run"
        let schema = try await freshCopy(tenant, migrator, from: from, data: data, source: source, connection: connection)
        let traffic = AppTraffic(conninfo: migrator.connectionString, schema: schema, rate: rate, data: data)
        traffic.start()
        try await Task.sleep(for: .seconds(1))
        let request = MigrationRequest(from == "v2" ? .migrate : .rollback, to: to, online: online ? .on : .off)
        let phases = PhaseTimeline()
        var traced = migrator
        if traceWaits { traced.settings.online.checkpoint = { phases.enter($0.phase) } }
        let started = ContinuousClock.now
        let result = try await traced.migrate(tenant: tenant, request)
        let total = ContinuousClock.now - started
        try await Task.sleep(for: .milliseconds(500))
        let report = traffic.stop()
        if traceWaits && online { print(phases.trace(of: report, since: started)) }
        guard result.outcome == .migrated else { throw BenchError("\(tenant): \(result.outcome)") }
        var equalsTwin: Bool?
        if online {
            // The twin: the same rows, the app's writes replayed, migrated offline.
            let twin = try await freshCopy("bench_online_twin", migrator, from: from, data: data, source: source, connection: connection)
            let replay = try Connection(migrator.connectionString)
            try replay.setSearchPath([twin])
            for statement in report.applied { try replay.execute(unsafeSQL: statement) }
            _ = try await migrator.migrate(tenant: "bench_online_twin", MigrationRequest(request.operation, to: to))
            let version = try require(family: migrator, to)
            equalsTwin = try digests(of: schema, version, on: connection) == digests(of: twin, version, on: connection)
            try await migrator.dropTenant("bench_online_twin", confirmed: true)
        }
        try await migrator.dropTenant(tenant, confirmed: true)
        return (total, report, result.online, equalsTwin)
    }

    /// A fresh tenant `tenant` holding the source rows, at `from` (v3 reached offline first).
    private func freshCopy(_ tenant: String, _ migrator: TenantMigrator, from: String, data: RecipesData, source: String,
                           connection: Connection) async throws -> String {
        _ = try? await migrator.dropTenant(tenant, confirmed: true)
        let schema = try await migrator.createTenant(tenant, version: "v2").schema
        try data.copy(from: source, to: schema, on: connection)
        if from == "v3" {
            _ = try await migrator.migrate(tenant: tenant, to: "v3")
            for table in ["recipe", "recipe_ingredient", "ingredient", "unit_of_measure", "_tm_archive"] {
                try connection.execute(unsafeSQL: "VACUUM ANALYZE \(schema).\(table)")
            }
        }
        return schema
    }

    /// The version `name` of the migrator's family.
    private func require(family migrator: TenantMigrator, _ name: String) throws -> ModelVersion {
        guard let version = migrator.family.version(named: name) else { throw BenchError("the family has no version \(name)") }
        return version
    }

    /// A digest of each table of `version` in `schema` (rows as JSON, sorted) and of its archive
    /// (without the time of each entry and its link target, which an online run does not keep).
    private func digests(of schema: String, _ version: ModelVersion, on connection: Connection) throws -> [String] {
        var tables = version.relationalSchema().tables.map { ("pg_catalog.to_jsonb(t)::text", connection.qualified(schema, $0.name) + " AS t") }
        // (A dropped table's identity mark, `#identity`, counts the ids the run drew, and catch-up draws more.)
        tables.append(("(pg_catalog.to_jsonb(t) - 'archived_at' - 'target')::text", connection.qualified(schema, "_tm_archive") + " AS t WHERE t.column_name <> '#identity'"))
        return try tables.map { row, table in
            try connection.execute(unsafeSQL: "SELECT pg_catalog.md5(coalesce(pg_catalog.string_agg(s.x, E'\\n' ORDER BY s.x), '')) FROM (SELECT \(row) AS x FROM \(table)) AS s")
                .first?.decode(String.self, at: 0) ?? ""
        }
    }

    static func line(_ result: Result) -> String {
        var text = "\(result.path) \(result.way) \(result.online ? "online " : "offline"): \(format(result.total)); "
            + "worst write wait \(format(result.traffic.worstWrite)), worst read wait \(format(result.traffic.worstRead)) "
            + "(\(result.traffic.writes) writes, \(result.traffic.reads) reads)"
        if let progress = result.progress {
            text += "; \(progress.mode): \(format(count: progress.rowsCopied)) rows copied, \(progress.changesCaughtUp) changes caught up in \(progress.rounds) rounds, "
                + "cutover held writes \(format(.milliseconds(progress.writesBlockedMilliseconds))) and reads \(format(.milliseconds(progress.readsBlockedMilliseconds)))"
        }
        if let equal = result.equalsTwin { text += equal ? "; equals its offline twin" : "; DIFFERS from its offline twin" }
        if !result.traffic.errors.isEmpty { text += "; \(result.traffic.errors.count) app errors, first: \(result.traffic.errors[0])" }
        return text
    }

    private func printSummary(_ results: [Result]) {
        print("\n== summary (lock_timeout \(lockTimeout) ms)")
        func padded(_ cells: [String]) -> String {
            zip(cells, [11, 9, 27, 21, 11, 13]).map { $0.padding(toLength: max($1, $0.count + 1), withPad: " ", startingAt: 0) }.joined()
                + (cells.count > 6 ? cells[6] : "")
        }
        print(padded(["rows", "path", "way", "mode", "total", "worst write", "worst read"]))
        for result in results {
            let mode = result.online ? "online (\(result.progress?.mode ?? "?"))" : "offline"
            print(padded([format(count: result.rows), result.path, result.way, mode, format(result.total),
                          format(result.traffic.worstWrite), format(result.traffic.worstRead)]))
        }
        guard let largest = results.map(\.rows).max(), let smallest = results.map(\.rows).min() else { return }
        print("\n== targets, online at \(format(count: largest)) rows")
        for result in results where result.online && result.rows == largest {
            let offline = results.first { !$0.online && $0.rows == largest && $0.path == result.path && $0.way == result.way }
            let small = results.first { $0.online && $0.rows == smallest && $0.path == result.path && $0.way == result.way }
            let ratio = offline.map { result.total.inSeconds / $0.total.inSeconds } ?? 0
            let writeOK = result.traffic.worstWrite <= .seconds(1), readOK = result.traffic.worstRead <= .milliseconds(lockTimeout)
            print("\(result.path) \(result.way) (\(result.progress?.mode ?? "?")): worst write \(format(result.traffic.worstWrite)) \(writeOK ? "<= 1 s" : "ABOVE 1 s"), "
                + "worst read \(format(result.traffic.worstRead)) \(readOK ? "<=" : "ABOVE") lock_timeout, "
                + String(format: "online/offline time %.2f %@", ratio, ratio <= 2 ? "<= 2" : "ABOVE 2")
                + (result.equalsTwin == true ? ", equals its offline twin" : ", DIFFERS from its offline twin")
                + (small.map { "; from \(format(count: smallest)) rows: write \(format($0.traffic.worstWrite)) → \(format(result.traffic.worstWrite)), read \(format($0.traffic.worstRead)) → \(format(result.traffic.worstRead))" } ?? ""))
        }
    }
}
