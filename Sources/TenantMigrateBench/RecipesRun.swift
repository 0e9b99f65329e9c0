import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import TenantMigrator
import TypedSQL

/// One size of `tenant-migrate-bench recipes`: generates the source tenant, times every way on
/// fresh copies of it, checks they agree, and prints the runs and their summary.
struct RecipesRun {
    typealias Way = RecipesBenchmark.Way

    /// The v2 tenant every run copies its rows from.
    static let sourceTenant = "bench_source"

    let connection: Connection
    let conninfo: String
    let psql: String
    let repetitions: Int
    /// The ways timed, in order.
    let ways: [Way]
    /// The migrator of every way that goes through the library.
    let migrators: [Way: TenantMigrator]

    /// What one size measured: the best time of each way and its highest peak memory.
    struct SizeResult {
        let rows: Int
        /// The schema of the source tenant, still there for what comes after.
        let sourceSchema: String
        var best: [Way: Duration] = [:]
        var peakKiB: [Way: Int] = [:]

        func perMillion(_ way: Way) -> Double { (best[way] ?? .zero).inSeconds * 1_000_000 / Double(rows) }
        /// The way's time over the SQL's; nil unless both ran.
        func ratio(_ way: Way) -> Double? {
            guard let time = best[way], let sql = best[.sql] else { return nil }
            return time.inSeconds / sql.inSeconds
        }
    }

    func timeEveryWay(on data: RecipesData) async throws -> SizeResult {
        guard let tool = migrators[.policies], let v3 = tool.family.version(named: "v3") else { throw BenchError("the family has no v3") }
        _ = try? await tool.dropTenant(Self.sourceTenant, confirmed: true)
        let source = try await tool.createTenant(Self.sourceTenant, version: "v2").schema
        let generation = try measure { try data.generate(into: source, on: connection) }
        try connection.execute(unsafeSQL: "VACUUM ANALYZE \(source).recipe")
        try connection.execute(unsafeSQL: "VACUUM ANALYZE \(source).recipe_ingredient")
        let typeCounts = try connection.execute(unsafeSQL: "SELECT type, count(*) FROM \(source).recipe GROUP BY type ORDER BY type")
            .map { "\(try $0.decode(String.self, at: 0)) \(try $0.decode(Int.self, at: 1))" }
        print("\n== \(format(count: data.ingredients)) recipe ingredients")
        print("data: \(format(count: data.recipes)) recipes (\(typeCounts.joined(separator: ", "))), \(format(count: data.ingredients)) recipe ingredients, "
            + "\(data.names) names, \(data.units) units; generated with COPY in \(format(generation))")

        let scriptURL = FileManager.default.temporaryDirectory.appendingPathComponent("tenant-migrate-bench-\(getuid())-recipes.sql")
        defer { try? FileManager.default.removeItem(at: scriptURL) }
        var timings: [Way: Timings] = [:]
        var result = SizeResult(rows: data.ingredients, sourceSchema: source)
        var checksums: [Way: String] = [:]
        for repetition in 0..<repetitions {
            let order = repetition % 2 == 0 ? ways : ways.reversed()
            var line = "run \(repetition + 1):"
            for way in order {
                let tenant = "bench_\(way.rawValue)_\(repetition + 1)"
                let migrator = migrators[way] ?? tool
                let schema = try await migrator.createTenant(tenant, version: "v2").schema
                try data.copy(from: source, to: schema, on: connection)
                let peakReset = PeakMemory.reset()
                let elapsed: Duration
                if way == .sql {
                    try Self.sqlScript(schema: schema, quoting: connection).write(to: scriptURL, atomically: true, encoding: .utf8)
                    elapsed = try measure {
                        let (status, output) = try runProgram(psql, ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", conninfo, "-f", scriptURL.path])
                        guard status == 0 else { throw BenchError("psql exited with \(status): \(output)") }
                    }
                } else {
                    let start = ContinuousClock.now
                    let migrated = try await migrator.migrate(tenant: tenant, to: "v3")
                    elapsed = ContinuousClock.now - start
                    guard migrated.outcome == .migrated else { throw BenchError("\(way.rawValue): \(migrated.outcome)") }
                }
                let peak = PeakMemory.kibibytes()
                result.peakKiB[way] = max(result.peakKiB[way] ?? 0, peak)
                timings[way, default: Timings()].add(elapsed)

                // Same data, same shape, whichever way.
                let checksum = try Self.checksum(schema, on: connection)
                if let reference = checksums.values.first, reference != checksum {
                    throw BenchError("\(way.rawValue) produced different data: \(checksum) instead of \(reference)")
                }
                checksums[way] = checksum
                let drift = try SchemaSnapshot.read(schema: schema, on: connection).differences(from: SchemaSnapshot.expected(for: v3, on: connection))
                if !drift.isEmpty { throw BenchError("\(way.rawValue) left a schema that differs from v3: \(drift)") }
                let perMillion = elapsed.inSeconds * 1_000_000 / Double(data.ingredients)
                line += "  \(way.rawValue) \(format(elapsed)) (\(String(format: "%.2f", perMillion)) s/M rows, peak \(peak / 1024) MiB\(peakReset ? "" : " since start"))"
                try await migrator.dropTenant(tenant, confirmed: true)
            }
            print(line)
        }
        print("checks: all runs produced the same data (\(checksums.values.first ?? "-")) and the v3 schema")
        for way in ways { result.best[way] = timings[way]?.best }
        Self.printSummary(result, ways: ways)
        return result
    }

    static func printSummary(_ result: SizeResult, ways: [Way]) {
        for way in ways {
            print("\((way.label + ":").padding(toLength: 32, withPad: " ", startingAt: 0)) best \(format(result.best[way] ?? .zero)) "
                + String(format: "(%.2f s per million rows)", result.perMillion(way)))
        }
        let targets: [(Way, String, Double?)] = [(.declarative, "declarative", 1.2), (.mixed, "mixed", nil), (.policies, "policies", 1.5)]
        for (way, name, target) in targets {
            guard let ratio = result.ratio(way) else { continue }
            let label = "ratio \(name)/sql:".padding(toLength: 23, withPad: " ", startingAt: 0)
            print(label + String(format: "%.2f", ratio) + (target.map { String(format: " (target <= %.2f)%@", $0, ratio <= $0 ? "" : "  ABOVE TARGET") } ?? ""))
        }
        let peaks = ways.map { "\($0.rawValue) \((result.peakKiB[$0] ?? 0) / 1024) MiB" + ($0 == .policies ? " (target <= 100)" : "") }
        let policiesAbove = ways.contains(.policies) && (result.peakKiB[.policies] ?? 0) / 1024 > 100
        print("peak memory (VmHWM) of this process during each run: \(peaks.joined(separator: ", "))\(policiesAbove ? "  ABOVE TARGET" : "")")
    }

    /// Across sizes: time per million rows and peak memory at each, and how they grew from the first.
    static func printGrowth(_ results: [SizeResult], ways: [Way]) {
        print("\n== growth across sizes")
        let ratioWays = ways.filter { $0 != .sql && results.first?.ratio($0) != nil }
        print("rows".padding(toLength: 14, withPad: " ", startingAt: 0)
            + ways.map { "\($0.rawValue) s/M".padding(toLength: 18, withPad: " ", startingAt: 0) }.joined()
            + ratioWays.map { "\($0.rawValue)/sql".padding(toLength: 17, withPad: " ", startingAt: 0) }.joined()
            + "peak policies")
        for result in results {
            print(format(count: result.rows).padding(toLength: 14, withPad: " ", startingAt: 0)
                + ways.map { String(format: "%.2f", result.perMillion($0)).padding(toLength: 18, withPad: " ", startingAt: 0) }.joined()
                + ratioWays.map { String(format: "%.2f", result.ratio($0) ?? 0).padding(toLength: 17, withPad: " ", startingAt: 0) }.joined()
                + "\((result.peakKiB[.policies] ?? 0) / 1024) MiB")
        }
        guard let first = results.first, let last = results.last else { return }
        let rows = Double(last.rows) / Double(first.rows)
        let growth = ways.map { way in
            String(format: "%@ %.2f×", way.rawValue, (last.best[way] ?? .zero).inSeconds / (first.best[way] ?? .zero).inSeconds)
        }
        var line = String(format: "time from %@ to %@ rows (%.1f× the rows): ", format(count: first.rows), format(count: last.rows), rows) + growth.joined(separator: ", ")
        if ways.contains(.policies) {
            let policies = (last.best[.policies] ?? .zero).inSeconds / (first.best[.policies] ?? .zero).inSeconds
            line += String(format: " (target for policies <= %.1f×)%@", rows * 1.1, policies <= rows * 1.1 ? "" : "  ABOVE TARGET")
        }
        print(line)
        print("peak memory of the policies from \(format(count: first.rows)) to \(format(count: last.rows)) rows: "
            + "\((first.peakKiB[.policies] ?? 0) / 1024) → \((last.peakKiB[.policies] ?? 0) / 1024) MiB")
    }

    /// Row count and an order-independent hash of what v3 holds, independent of the ids given to
    /// new Ingredient and UnitOfMeasure rows.
    static func checksum(_ schema: String, on connection: Connection) throws -> String {
        let row = try connection.execute(unsafeSQL: """
            SELECT (SELECT count(*) FROM \(schema).recipe_ingredient)::text || ' rows, '
                || (SELECT coalesce(sum(hashtext(ri.id || '|' || coalesce(ri.quantity::text, '') || '|' || coalesce(ri.recipe_id::text, '')
                        || '|' || i.name || '|' || coalesce(u.name, ''))::int8), 0)
                    FROM \(schema).recipe_ingredient ri JOIN \(schema).ingredient i ON i.id = ri.ingredient_id
                    LEFT JOIN \(schema).unit_of_measure u ON u.id = i.unit_of_measure_id)::text || '/'
                || (SELECT coalesce(sum(hashtext(r.id || '|' || r.type || '|' || r.name)::int8), 0) FROM \(schema).recipe r)::text || '/'
                || (SELECT count(*) FROM \(schema).ingredient)::text || ' ingredients/'
                || (SELECT count(*) FROM \(schema).unit_of_measure)::text || ' units'
            """)[0]
        return try row.decode(String.self, at: 0)
    }

    /// The same transformation by hand, as a DBA would write it; names as v3 has them.
    static func sqlScript(schema: String, quoting q: some SQLQuoting) -> String {
        let s = q.quoteIdentifier(schema)
        return """
            BEGIN;
            UPDATE \(s).recipe SET type = 'Entrée' WHERE type IN ('Meat', 'Fish');
            \(RecipesByHand.newTables(s))
            ALTER TABLE \(s).recipe_ingredient ADD COLUMN ingredient_id bigint;
            UPDATE \(s).recipe_ingredient ri SET ingredient_id = i.id FROM \(s).ingredient i WHERE i.name = ri.name;
            ALTER TABLE \(s).recipe_ingredient ALTER COLUMN ingredient_id SET NOT NULL;
            ALTER TABLE \(s).recipe_ingredient DROP COLUMN name, DROP COLUMN unit_of_measure;
            ALTER TABLE \(s).ingredient ADD CONSTRAINT ingredient_unit_of_measure_id_fkey
                FOREIGN KEY (unit_of_measure_id) REFERENCES \(s).unit_of_measure (id) ON DELETE SET NULL;
            ALTER TABLE \(s).recipe_ingredient ADD CONSTRAINT recipe_ingredient_ingredient_id_fkey
                FOREIGN KEY (ingredient_id) REFERENCES \(s).ingredient (id) ON DELETE RESTRICT;
            CREATE INDEX ingredient_unit_of_measure_id_idx ON \(s).ingredient (unit_of_measure_id);
            CREATE INDEX recipe_ingredient_ingredient_id_idx ON \(s).recipe_ingredient (ingredient_id);
            COMMIT;

            """
    }
}
