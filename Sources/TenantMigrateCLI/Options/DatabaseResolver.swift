import EmbeddedPostgres
import Foundation

/// Chooses the database: --database-url, then DATABASE_URL, then libpq's own defaults when any
/// PG* variable is set, then the embedded server under the working directory, where the runner
/// allows it (``TenantMigrateConfiguration/allowsEmbeddedServer``); without it, an error.
enum DatabaseResolver {
    static let libpqVariables = ["PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE", "PGSERVICEFILE"]

    static func resolve(explicit: String?) throws -> String {
        if let explicit { return explicit }
        let environment = ProcessInfo.processInfo.environment
        if let url = environment["DATABASE_URL"], !url.isEmpty { return url }
        if libpqVariables.contains(where: { environment[$0].map { !$0.isEmpty } ?? false }) { return "" }
        guard CommandEnvironment.configuration.allowsEmbeddedServer else {
            throw CLIError("no database configured: pass --database-url, or set DATABASE_URL or libpq's PG* variables "
                + "(\(libpqVariables.joined(separator: ", ")))")
        }
        let server = try embedded.start()
        Console.note("no database configured (--database-url, DATABASE_URL or PG* variables); using the embedded PostgreSQL in \(embeddedDirectory.relativePath) (stop it with `\(CommandEnvironment.commandName) embedded stop`)")
        return server.connectionString()
    }

    /// `.tenant-migrate/postgres` under the working directory, or `$TENANT_MIGRATE_EMBEDDED_DIR`.
    static let embeddedDirectory: URL = {
        if let directory = ProcessInfo.processInfo.environment["TENANT_MIGRATE_EMBEDDED_DIR"], !directory.isEmpty {
            return URL(fileURLWithPath: directory)
        }
        return URL(fileURLWithPath: ".tenant-migrate/postgres", relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
    }()

    static var embedded: EmbeddedPostgres { EmbeddedPostgres(directory: embeddedDirectory.absoluteURL) }
}
