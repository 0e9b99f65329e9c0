import ArgumentParser

/// Benchmarks for the tenant migrator. Build them in release mode:
/// `swift run -c release tenant-migrate-bench copy`. They print timings; they are not tests.
///
/// One file per subcommand; `BenchSupport.swift` holds the shared timing, printing and server
/// setup. The root is async so that subcommands may be either.
@main
struct TenantMigrateBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tenant-migrate-bench",
        abstract: "Benchmarks for the tenant migrator (run with -c release).",
        subcommands: [
            FleetBenchmark.self,
            CreateBenchmark.self,
            PoolBenchmark.self,
            CitusBenchmark.self,
            CopyBenchmark.self, RecipesBenchmark.self, ArchiveBenchmark.self, OnlineBenchmark.self]
    )
}
