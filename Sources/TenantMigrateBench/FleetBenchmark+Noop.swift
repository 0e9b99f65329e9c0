import ChildProcesses
import EmbeddedPostgres
import Foundation
import LibPQ
import TenantMigrator

/// `tenant-migrate-bench fleet --noop`: a deploy with nothing to do. The tenants are real (created
/// by `createTenants`), or, with `--catalog-only`, catalog rows made with SQL, since creating a
/// million schemas is not the point; then `tenant-migrate migrate --all` also runs as a process of
/// its own over them, timed, with its peak memory.
extension FleetBenchmark {
    func runNoop(count: Int, migrator: TenantMigrator, connection: Connection, database: BenchDatabase) async throws {
        let latest = migrator.family.latestVersion
        let clock = ContinuousClock()
        let createStart = clock.now
        let setup: String
        if catalogOnly {
            try await migrator.withConnection { _ in }  // installs the catalog
            try connection.execute(unsafeSQL: """
                INSERT INTO \(connection.quoteIdentifier(migrator.catalog.schema)).tenants (name, schema_name, family, version, version_hash)
                SELECT 'n' || lpad(g::text, 7, '0'), 'tenant_n' || lpad(g::text, 7, '0'), $1, $2, $3 FROM generate_series(1, $4::int) AS g
                """, [migrator.family.name, latest.name, latest.versionHash, count])
            setup = "made \(format(count: count)) catalog rows at \(latest.name) with one INSERT … SELECT (no schemas) in \(format(clock.now - createStart))"
        } else {
            let created = try await migrator.createTenants(FleetBench.names("n", count), jobs: jobs)
            let creation = clock.now - createStart
            guard created.migrated == count else { throw BenchError("created \(created.migrated) of \(count) tenants: \(created.entries.first { $0.error != nil }?.error ?? "")") }
            setup = "created \(format(count: count)) tenants at \(latest.name) in \(format(creation)) "
                + "(\(String(format: "%.1f", creation.inSeconds * 1000 / Double(count))) ms per tenant, createTenants jobs \(jobs))"
        }
        try connection.execute(unsafeSQL: "VACUUM ANALYZE \(connection.quoteIdentifier(migrator.catalog.schema)).tenants")
        _ = try? connection.execute("CHECKPOINT")

        // As `migrate --all` runs it (the summary counts the tenants already there), then with a
        // report that lists each of them (as `--json` does).
        var counted = Timings(), listed = Timings()
        var lines: [String] = []
        for repetition in 1...repetitions {
            for listing in [false, true] {
                let start = clock.now
                let report = try await migrator.moveAll(.migrate(), jobs: jobs, listingCurrentTenants: listing)
                let elapsed = clock.now - start
                guard report.skipped == count, report.succeeded else {
                    throw BenchError("no-op run \(repetition): \(report.skipped) skipped, \(report.migrated) migrated, \(report.failed) failed")
                }
                listing ? listed.add(elapsed) : counted.add(elapsed)
                lines.append("  run \(repetition), \(listing ? "listing each tenant" : "counting them      "): \(format(elapsed)) "
                    + "(report: \(String(format: "%.1f", report.milliseconds)) ms, \(format(count: report.skipped)) skipped, \(format(count: report.entries.count)) listed)")
            }
        }
        // Where a no-op run's time goes: connecting, the catalog check, the one round trip to the catalog.
        let connectStart = clock.now
        let probe = try Connection(migrator.connectionString, logger: quietLogger())
        let connect = clock.now - connectStart
        let catalog = migrator.catalog
        let install = try measure { try catalog.install(on: probe) }
        probe.resetStatistics()
        let standing = try measure { _ = try catalog.tenants(family: migrator.family.name, on: probe) }
        let allRows = probe.statistics.rowsReceived

        var output = [
            "",
            "== fleet --noop: migrateAll over \(format(count: count)) tenants already at \(latest.name) (jobs \(jobs))",
            setup,
        ] + lines + [
            "migrateAll no-op, counting the tenants already there (as migrate --all): best \(format(counted.best)), median \(format(counted.median)) "
                + "(target <= 1 s)\(counted.best <= .seconds(1) ? "" : "  ABOVE TARGET")",
            "migrateAll no-op, listing each of them (as --json): best \(format(listed.best)), median \(format(listed.median))",
            "breakdown: connect \(format(connect)), catalog check \(format(install)); one round trip counts the tenants at \(latest.name) on the "
                + "(family, version) index and reads only the others' rows (none here); for comparison, reading and decoding every row "
                + "(\(format(count: allRows)) rows) takes \(format(standing))",
        ]
        if catalogOnly { output += try runCLIProcess(database: database, count: count) }
        print(output.joined(separator: "\n"))
    }

    /// `tenant-migrate migrate --all` as a process of its own over the catalog: wall time and peak
    /// memory (`ru_maxrss`), best of `repetitions`.
    private func runCLIProcess(database: BenchDatabase, count: Int) throws -> [String] {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("tenant-migrate")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            return ["migrate --all as a process: skipped, no tenant-migrate beside this benchmark (build it: swift build -c release --product tenant-migrate)"]
        }
        let arguments = ["migrate", "--all", "--database-url", database.conninfo, "--migrations", family.url.path]
        var times = Timings()
        var peaks: [Int] = []
        var timed = false
        var last = ""
        for _ in 1...repetitions {
            let start = ContinuousClock.now
            // Under GNU time where it is there: the exact peak of a run this short (a sampled peak
            // could miss its last moments).
            let outcome = try ChildProcess(executable.path, arguments, measuringPeakMemory: true).wait()
            let elapsed = ContinuousClock.now - start
            guard outcome.status == 0 else { throw BenchError("tenant-migrate migrate --all exited with \(outcome.status): \(outcome.output.prefix(2000))") }
            times.add(elapsed)
            peaks.append(outcome.peakMemoryKiB)
            timed = outcome.peakMemoryIsExact
            last = outcome.output.split(separator: "\n").last.map(String.init) ?? ""
        }
        let peak = Double(peaks.max() ?? 0) / 1024
        return [
            "tenant-migrate migrate --all as a process over \(format(count: count)) catalog rows: best \(format(times.best)), median \(format(times.median)) "
                + "(target < 1 s)\(times.best < .seconds(1) ? "" : "  ABOVE TARGET"); peak memory "
                + String(format: "%.1f MiB (%@, the largest of %d runs; target < 100 MB)%@", peak, timed ? "measured by GNU time" : "VmHWM sampled by ChildProcess", peaks.count, peak * 1.048576 < 100 ? "" : "  ABOVE TARGET"),
            "  it printed: \(last)",
        ]
    }
}
