import Foundation

/// Where the PostgreSQL server programs (initdb, pg_ctl, postgres) are.
struct ServerBinaries: Sendable {
    let directory: URL

    func tool(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// Looks, in order, at `pg_config --bindir`, `/usr/lib/postgresql/*/bin` (newest first), and
    /// every directory on PATH; the first holding both `initdb` and `pg_ctl` wins.
    static func locate() throws -> ServerBinaries {
        var candidates: [String] = []
        if let bindir = try? CommandRunner.output(of: "pg_config", ["--bindir"]) {
            candidates.append(bindir.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let debianRoot = "/usr/lib/postgresql"
        if let versions = try? FileManager.default.contentsOfDirectory(atPath: debianRoot) {
            let sorted = versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
            candidates += sorted.map { "\(debianRoot)/\($0)/bin" }
        }
        candidates += (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        for candidate in candidates where !candidate.isEmpty {
            let manager = FileManager.default
            if manager.isExecutableFile(atPath: candidate + "/initdb"), manager.isExecutableFile(atPath: candidate + "/pg_ctl") {
                return ServerBinaries(directory: URL(fileURLWithPath: candidate))
            }
        }
        throw EmbeddedPostgresError(
            message: "PostgreSQL server programs (initdb, pg_ctl) were not found via pg_config --bindir, /usr/lib/postgresql/*/bin or PATH. Install them (Debian: apt-get install postgresql; macOS: brew install postgresql) or set DATABASE_URL."
        )
    }
}

/// An embedded server could not be set up, started or stopped.
public struct EmbeddedPostgresError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// The command's output, or the end of the server log.
    public var output: String?

    public init(message: String, output: String? = nil) {
        self.message = message
        self.output = output
    }

    public var description: String {
        guard let output, !output.isEmpty else { return message }
        return message + "\n" + output.split(separator: "\n").suffix(15).map { "  | " + $0 }.joined(separator: "\n")
    }
}
