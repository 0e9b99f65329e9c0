import ArgumentParser
import Dispatch
import EntityModel
import Foundation
import LibPQ
import Logging
import RecipesPolicies
import TenantMigrator
import TypedSQL

/// `tenant-migrate-bench create`: creating many tenants at the latest version with
/// `createTenants(jobs:)`, against psql running the very same SQL (one transaction per tenant,
/// split over as many sessions), so the difference is the tool's own cost.
struct CreateBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Time createTenants at the latest version against psql running the same DDL."
    )

    @Option(help: "Tenants to create.")
    var tenants = 1_000

    @Option(name: [.short, .long], help: "Connections used at once (and psql sessions for the baseline).")
    var jobs = 2

    @Flag(inversion: .prefixedNo, help: "Also time psql running the same SQL for as many tenants.")
    var psqlBaseline = true

    @Option(help: "Runs of each side (alternating order, new tenants each time); the best and the median are reported.")
    var repetitions = 2

    @OptionGroup var family: FamilyOptions

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        guard tenants > 0, jobs > 0 else { throw ValidationError("--tenants and --jobs must be positive") }
        let logger = quietLogger()
        let database = try self.database.open("tm_bench_create", kind: "fleet", logger: logger)
        defer { database.close() }
        let migrator = try TenantMigrator(connectionString: database.conninfo, familyDirectory: family.url,
                                          policies: RecipesPolicies.registry, logger: logger)
        let connection = try Connection(database.conninfo, logger: logger)
        print(try FleetBench.serverDescription(connection))
        let latest = migrator.family.latestVersion
        let clock = ContinuousClock()

        // The client's share: rendering one tenant's DDL.
        let renderings = 200
        let render = measure {
            for index in 0..<renderings {
                _ = latest.relationalSchema().createStatements(inSchema: "tenant_r\(index)", quoting: connection)
            }
        }
        let statementCount = latest.relationalSchema().createStatements(inSchema: "tenant_x", quoting: connection).count

        // Install the catalog first, so both sides start from the same state.
        try await migrator.withConnection { _ in }
        let psql = psqlBaseline ? try database.server.program("psql") : nil
        var toolTimings = Timings(), psqlTimings = Timings()
        var latencies: [Double] = []
        var cpu = 0.0
        var created: [String] = []
        var runLines: [String] = []
        for repetition in 1...repetitions {
            // Alternating order, so neither side always runs on the bigger catalog.
            let order = repetition % 2 == 1 ? ["tool", "psql"] : ["psql", "tool"]
            var line = "  run \(repetition):"
            for side in order {
                if side == "psql", psql == nil { continue }
                _ = try? connection.execute("CHECKPOINT")
                let names = FleetBench.names("\(side == "tool" ? "c" : "p")\(repetition)_", tenants)
                let elapsed: Duration
                if side == "tool" {
                    let cpuBefore = FleetBench.processCPUSeconds()
                    let start = clock.now
                    let report = try await migrator.createTenants(names, jobs: jobs)
                    elapsed = clock.now - start
                    cpu += FleetBench.processCPUSeconds() - cpuBefore
                    guard report.migrated == tenants else {
                        throw BenchError("created \(report.migrated) of \(tenants): \(report.entries.first { $0.error != nil }?.error ?? "")")
                    }
                    latencies += report.entries.map(\.milliseconds)
                    created += names
                    toolTimings.add(elapsed)
                } else {
                    elapsed = try Self.createThroughPsql(psql!, names: names, jobs: jobs, version: latest, conninfo: database.conninfo, quoting: connection)
                    let count = try Set(migrator.catalog.tenants(on: connection).map(\.name.rawValue)).intersection(names).count
                    guard count == tenants else { throw BenchError("psql created \(count) of \(tenants) tenants") }
                    psqlTimings.add(elapsed)
                }
                line += "  \(side) \(format(elapsed))"
            }
            runLines.append(line)
        }
        latencies.sort()
        func pct(_ p: Double) -> String { String(format: "%.1f", latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]) }
        let names = created
        let drifted = try await migrator.verify(tenants: [names[0], names[names.count - 1]]).filter { !$0.isClean }
        guard drifted.isEmpty else { throw BenchError("created tenants differ from \(latest.name): \(drifted.map(\.differences))") }

        let elapsed = toolTimings.best
        let perTenant = elapsed.inSeconds * 1000 / Double(tenants)
        var lines = [
            "",
            "== create: \(format(count: tenants)) tenants at \(migrator.family.name) \(latest.name) (createTenants, jobs \(jobs)), "
                + "\(repetitions) runs per side, alternating; each run creates new tenants",
        ] + runLines + [
            "tool: best \(format(elapsed)), median \(format(toolTimings.median)); "
                + String(format: "%.1f ms per tenant (target <= 25)%@; ", perTenant, perTenant <= 25 ? "" : "  ABOVE TARGET")
                + "per-tenant latency p50 \(pct(0.5)) ms, p95 \(pct(0.95)) ms; client CPU \(String(format: "%.2f", cpu / Double(repetitions))) s per run",
            "per tenant: one round trip of \(statementCount + 4) statements in one implicit transaction, then one SELECT of its record; "
                + String(format: "rendering its DDL costs %.2f ms of client CPU", render.inSeconds * 1000 / Double(renderings)),
        ]
        if psql != nil {
            let baseline = psqlTimings.best
            let psqlPerTenant = baseline.inSeconds * 1000 / Double(tenants)
            lines.append("psql, same SQL, \(jobs) sessions: best \(format(baseline)), median \(format(psqlTimings.median)); "
                + String(format: "%.1f ms per tenant; ratio tool / psql (best) %.2f", psqlPerTenant, elapsed.inSeconds / baseline.inSeconds))
        }
        lines.append("checks: created tenants verify clean at \(latest.name)")
        print(lines.joined(separator: "\n"))
    }

    /// Runs the tool's SQL for `names` through `jobs` psql sessions at once; returns the wall time.
    static func createThroughPsql(_ psql: String, names: [String], jobs: Int, version: ModelVersion, conninfo: String, quoting: some SQLQuoting) throws -> Duration {
        let parts = (0..<jobs).map { part in stride(from: part, to: names.count, by: jobs).map { names[$0] } }
        let files = parts.indices.map { FileManager.default.temporaryDirectory.appendingPathComponent("tenant-migrate-bench-\(getuid())-create-\($0).sql") }
        defer { files.forEach { try? FileManager.default.removeItem(at: $0) } }
        for (part, file) in zip(parts, files) {
            try part.map { createScript(tenant: $0, version: version, quoting: quoting) }.joined().write(to: file, atomically: true, encoding: .utf8)
        }
        return try runPsqlSessions(psql, conninfo: conninfo, files: files)
    }

    /// The SQL `TenantLifecycle.create` sends for one tenant, wrapped in a transaction.
    static func createScript(tenant: String, version: ModelVersion, quoting q: some SQLQuoting) -> String {
        let schema = "tenant_" + tenant
        let catalog = TenantCatalog()
        var statements = ["CREATE SCHEMA \(q.quoteIdentifier(schema))"]
        statements += version.relationalSchema().createStatements(inSchema: schema, quoting: q)
        statements.append(catalog.registerSQL(tenant, schema: schema, family: "Recipes", version: version).text(schema: schema, quoting: q))
        statements.append(catalog.historySQL(tenant, family: "Recipes", operation: .create, to: version.name,
                                             statisticsJSON: "{\"tables\": 4}").text(schema: schema, quoting: q))
        return "BEGIN;\n" + statements.joined(separator: ";\n") + ";\nCOMMIT;\n"
    }
}
