import EmbeddedPostgres
import Foundation
import Logging

/// Chooses the database: --database-url, then DATABASE_URL, then libpq's own defaults when any
/// PG* variable is set, then the embedded server under the working directory, where the runner
/// allows it (``TenantMigrateConfiguration/allowsEmbeddedServer``); without it, an error.
struct DatabaseResolver {
    static let libpqVariables = ["PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE", "PGSERVICEFILE"]

    /// The database a command runs on.
    struct Choice {
        /// The conninfo string or URI ("" for libpq's own defaults).
        let connectionString: String
        /// The embedded server's directory, when the command started (or reused) it.
        let embeddedDirectory: URL?

        /// What a command's summary line adds, so that `0 tenants` on the embedded server is not
        /// mistaken for the operator's database: ` (embedded PostgreSQL in .tenant-migrate/postgres)`.
        var summaryNote: String {
            embeddedDirectory.map { " (embedded PostgreSQL in \($0.relativePath))" } ?? ""
        }
    }

    let allowsEmbeddedServer: Bool
    let console: Console
    let logger: Logger

    func resolve(explicit: String?) throws -> Choice {
        if let explicit { return Choice(connectionString: explicit, embeddedDirectory: nil) }
        let environment = ProcessInfo.processInfo.environment
        if let url = environment["DATABASE_URL"], !url.isEmpty { return Choice(connectionString: url, embeddedDirectory: nil) }
        if Self.libpqVariables.contains(where: { environment[$0].map { !$0.isEmpty } ?? false }) {
            return Choice(connectionString: "", embeddedDirectory: nil)
        }
        guard allowsEmbeddedServer else {
            throw CLIError("no database configured: pass --database-url, or set DATABASE_URL or libpq's PG* variables "
                + "(\(Self.libpqVariables.joined(separator: ", ")))")
        }
        let server = try embedded.start()
        console.note("no database configured (--database-url, DATABASE_URL or PG* variables); using the embedded PostgreSQL in "
            + "\(Self.embeddedDirectory.relativePath) (stop it with `\(console.commandName) embedded stop`)")
        return Choice(connectionString: server.connectionString(), embeddedDirectory: Self.embeddedDirectory)
    }

    /// `.tenant-migrate/postgres` under the working directory, or `$TENANT_MIGRATE_EMBEDDED_DIR`.
    static var embeddedDirectory: URL {
        if let directory = ProcessInfo.processInfo.environment["TENANT_MIGRATE_EMBEDDED_DIR"], !directory.isEmpty {
            return URL(fileURLWithPath: directory)
        }
        return URL(fileURLWithPath: ".tenant-migrate/postgres", relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
    }

    /// The embedded server, logging where the runner's logs go.
    var embedded: EmbeddedPostgres { EmbeddedPostgres(directory: Self.embeddedDirectory.absoluteURL, logger: logger) }
}
