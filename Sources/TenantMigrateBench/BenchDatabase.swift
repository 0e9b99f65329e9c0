import Foundation
import LibPQ
import Logging

/// A database of its own on the benchmark server, created afresh (dropped first if a run before
/// left it behind); ``close()`` removes it at the end and stops the server.
struct BenchDatabase {
    let name: String
    let conninfo: String
    /// The server it is on.
    let server: BenchServer
    private let admin: Connection

    /// - Parameter logSlowStatements: log statements slower than this many milliseconds to the
    ///   server's log (for profiling).
    init(server: BenchServer, name: String, logSlowStatements: Int? = nil, logger: Logger = quietLogger()) throws {
        self.name = name
        self.server = server
        admin = try Connection(server.conninfo, logger: logger)
        let database = admin.quoteIdentifier(name)
        try admin.execute(unsafeSQL: "DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
        try admin.execute(unsafeSQL: "CREATE DATABASE \(database) TEMPLATE template0 ENCODING 'UTF8'")
        if let logSlowStatements {
            try admin.execute(unsafeSQL: "ALTER DATABASE \(database) SET log_min_duration_statement = \(logSlowStatements)")
        }
        conninfo = Self.conninfo(server.conninfo, database: name)
    }

    /// Drops the database and stops the server (if the benchmark started it).
    func close() {
        _ = try? admin.execute(unsafeSQL: "DROP DATABASE IF EXISTS \(admin.quoteIdentifier(name)) WITH (FORCE)")
        server.stop()
    }

    /// `conninfo` pointing at `database` (a later `dbname` wins in a key=value string).
    static func conninfo(_ conninfo: String, database: String) -> String {
        if conninfo.hasPrefix("postgres://") || conninfo.hasPrefix("postgresql://"), var components = URLComponents(string: conninfo) {
            components.path = "/" + database
            return components.string ?? conninfo
        }
        return conninfo + " dbname='\(database)'"
    }
}

/// A logger for the library under benchmark: warnings and worse only.
func quietLogger() -> Logger {
    var logger = Logger(label: "tenant-migrate-bench")
    logger.logLevel = .warning
    return logger
}
