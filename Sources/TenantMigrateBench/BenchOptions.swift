import ArgumentParser
import EmbeddedPostgres
import Foundation
import Logging

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

/// The server a benchmark runs on and the database of its own it creates there (every benchmark
/// but `copy`, which loads into the server's own database).
struct DatabaseOptions: ParsableArguments {
    @OptionGroup var server: ServerOptions

    @Option(help: "Log statements slower than this many milliseconds to the server's log (for profiling).")
    var logSlowStatements: Int?

    /// Starts (or finds) the server and creates the database `name` there afresh;
    /// ``BenchDatabase/close()`` drops it and stops the server. `kind` and `durability` as for
    /// ``ServerOptions/start(kind:durability:)``.
    func open(_ name: String, kind: String? = nil, durability: EmbeddedPostgres.Durability = .durable,
              logger: Logger = quietLogger()) throws -> BenchDatabase {
        let server = try self.server.start(kind: kind, durability: durability)
        do {
            return try BenchDatabase(server: server, name: name, logSlowStatements: logSlowStatements, logger: logger)
        } catch {
            server.stop()
            throw error
        }
    }
}

/// The model family the benchmarks migrate.
struct FamilyOptions: ParsableArguments {
    @Option(help: "The Recipes family directory.")
    var familyDirectory = "Migrations/Recipes"

    var url: URL { URL(fileURLWithPath: familyDirectory) }
}
