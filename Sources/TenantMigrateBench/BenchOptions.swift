import ArgumentParser
import EmbeddedPostgres
import Foundation

/// Where a benchmark's server lives: `--directory` for the embedded one, else a directory of its
/// own under /tmp; `DATABASE_URL` instead when set.
struct ServerOptions: ParsableArguments {
    @Option(help: "Directory of the embedded server (default /tmp/tenant-migrate-bench[-<kind>]-<uid>, one per kind of benchmark); ignored with DATABASE_URL.")
    var directory: String?

    /// Starts (or finds) the server; `kind` names the default directory (`fleet`, `citus`; nil for the shared one).
    func start(kind: String? = nil, durability: EmbeddedPostgres.Durability = .durable) throws -> BenchServer {
        try BenchServer.start(directory: directory ?? "/tmp/tenant-migrate-bench\(kind.map { "-" + $0 } ?? "")-\(getuid())", durability: durability)
    }
}

/// The model family the benchmarks migrate.
struct FamilyOptions: ParsableArguments {
    @Option(help: "The Recipes family directory.")
    var familyDirectory = "Migrations/Recipes"

    var url: URL { URL(fileURLWithPath: familyDirectory) }
}
