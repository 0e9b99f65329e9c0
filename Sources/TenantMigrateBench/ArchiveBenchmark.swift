import ArgumentParser
import Foundation
import LibPQ
import Logging
import RecipesPolicies
import TenantMigrator

/// `tenant-migrate-bench archive`: what the archive costs. Recipes v2 → v3 (with both Swift
/// policies) and back down to v2, on one large tenant, with the archive and without it
/// (`--no-archive`, which then needs consent), each on a fresh copy of the same data, alternating
/// the order. With the archive, the way down restores what the way up overwrote or dropped
/// (recipe types, ingredient names and units), and the benchmark checks that it did.
struct ArchiveBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "Time Recipes v2 → v3 → v2 with and without the archive (targets: up ≤ 1.3×, down ≤ 1.5×)."
    )

    @OptionGroup var data: RecipesData

    @Option(help: "Runs of each way (alternating order); the best is reported.")
    var repetitions = 2

    @OptionGroup var family: FamilyOptions

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        guard repetitions > 0 else { throw ValidationError("--repetitions must be positive") }
        let logger = quietLogger()
        let database = try self.database.open("tm_bench_archive", logger: logger)
        defer { database.close() }
        let conninfo = database.conninfo
        let connection = try Connection(conninfo, logger: logger)

        let archiving = try TenantMigrator(
            connectionString: conninfo, familyDirectory: family.url,
            policies: RecipesPolicies.registry, logger: logger
        )
        var notArchiving = archiving
        notArchiving.archives = false

        let source = try await archiving.createTenant("bench_source", version: "v2").schema
        let generation = try measure { try data.generate(into: source, on: connection) }
        let before = try Self.checksum(source, on: connection)
        print("data: \(format(count: data.recipes)) recipes, \(format(count: data.ingredients)) recipe ingredients; generated in \(format(generation))")

        var up: [Bool: Timings] = [:], down: [Bool: Timings] = [:]
        var archiveRows = 0
        for repetition in 0..<repetitions {
            var line = "run \(repetition + 1):"
            for archive in repetition % 2 == 0 ? [false, true] : [true, false] {
                let migrator = archive ? archiving : notArchiving
                let tenant = "bench_\(archive ? "archive" : "plain")_\(repetition + 1)"
                let schema = try await migrator.createTenant(tenant, version: "v2").schema
                try data.copy(from: source, to: schema, on: connection)
                var start = ContinuousClock.now
                let there = try await migrator.migrate(tenant: tenant, to: "v3", allowDestructive: !archive)
                let upTime = ContinuousClock.now - start
                guard there.outcome == .migrated else { throw BenchError("up: \(there.outcome)") }
                if archive {
                    archiveRows = try connection.execute(unsafeSQL: "SELECT count(*)::int8 FROM \(schema)._tm_archive").first?.decode(Int.self, at: 0) ?? 0
                }
                try connection.execute("CHECKPOINT")
                start = ContinuousClock.now
                let back = try await migrator.rollback(tenant: tenant, to: "v2", allowDestructive: !archive)
                let downTime = ContinuousClock.now - start
                guard back.outcome == .migrated else { throw BenchError("down: \(back.outcome)") }
                if archive {
                    let after = try Self.checksum(schema, on: connection)
                    guard after == before else { throw BenchError("the way down did not restore the data: \(after) instead of \(before)") }
                }
                up[archive, default: Timings()].add(upTime)
                down[archive, default: Timings()].add(downTime)
                line += "  \(archive ? "archive" : "no archive"): up \(format(upTime)), down \(format(downTime))"
                try await migrator.dropTenant(tenant, confirmed: true)
            }
            print(line)
        }
        print("archive: \(format(count: archiveRows)) entries after the way up; the way down restored every recipe and recipe ingredient exactly")
        let upRatio = up[true]!.best.inSeconds / up[false]!.best.inSeconds
        let downRatio = down[true]!.best.inSeconds / down[false]!.best.inSeconds
        print("v2 → v3 without archive: best \(format(up[false]!.best)); with archive: best \(format(up[true]!.best))")
        print("v3 → v2 without archive: best \(format(down[false]!.best)); with restoration: best \(format(down[true]!.best))")
        print(String(format: "ratio up archive/none:   %.2f (target <= 1.30)%@", upRatio, upRatio <= 1.3 ? "" : "  ABOVE TARGET"))
        print(String(format: "ratio down restore/none: %.2f (target <= 1.50)%@", downRatio, downRatio <= 1.5 ? "" : "  ABOVE TARGET"))
    }

    /// An order-independent hash of the v2 tables: every recipe and recipe ingredient, all columns (as
    /// jsonb, so a column that came back at the end of the table compares equal).
    static func checksum(_ schema: String, on connection: Connection) throws -> String {
        try connection.execute(unsafeSQL: """
            SELECT (SELECT count(*) || '/' || coalesce(sum(hashtext(to_jsonb(r)::text)::int8), 0) FROM \(schema).recipe r) || ' recipes, '
                || (SELECT count(*) || '/' || coalesce(sum(hashtext(to_jsonb(ri)::text)::int8), 0) FROM \(schema).recipe_ingredient ri) || ' recipe ingredients'
            """)[0].decode(String.self, at: 0)
    }
}
