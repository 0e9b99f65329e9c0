import Foundation
import Logging

/// A private PostgreSQL server in a directory of its own: for tests, benchmarks and the CLI's
/// default when no database is configured.
///
/// The directory holds `data/` (the cluster), `socket/` (the Unix socket) and `server.log`.
/// ``start()`` runs `initdb` the first time, reuses a cluster (even a running one) left in the same
/// directory, and waits until the server accepts connections. Run as root, every server command
/// runs as the `postgres` user, since PostgreSQL refuses to run as root.
///
/// ```swift
/// let server = try EmbeddedPostgres(directory: URL(fileURLWithPath: ".tenant-migrate/postgres")).start()
/// let connection = try Connection(server.connectionString)
/// ```
public struct EmbeddedPostgres: Sendable {
    /// How the server trades durability for speed.
    public enum Durability: Sendable {
        /// PostgreSQL's defaults.
        case durable
        /// `fsync`, `synchronous_commit` and `full_page_writes` off: for tests and throwaway clusters.
        case fast
    }

    /// Where the cluster lives.
    public var directory: URL
    /// The TCP port when listening on loopback (0 picks a free one); otherwise the Unix socket's
    /// number (`.s.PGSQL.<port>`).
    public var port: Int
    /// Also listen on 127.0.0.1, not only on the private Unix socket.
    public var listensOnLoopback: Bool
    public var durability: Durability
    /// The superuser created by initdb.
    public var superuser: String
    /// Extra `-c name=value` server settings.
    public var settings: [String: String]
    public var logger: Logger

    public init(
        directory: URL,
        port: Int = 5432,
        listensOnLoopback: Bool = false,
        durability: Durability = .durable,
        superuser: String = "postgres",
        settings: [String: String] = [:],
        logger: Logger = Logger(label: "EmbeddedPostgres")
    ) {
        self.directory = directory.standardizedFileURL
        self.port = port
        self.listensOnLoopback = listensOnLoopback
        self.durability = durability
        self.superuser = superuser
        self.settings = settings
        self.logger = logger
    }

    var dataDirectory: URL { directory.appendingPathComponent("data") }
    var logFile: URL { directory.appendingPathComponent("server.log") }

    /// The socket directory: inside ``directory``, unless that path is too long for a Unix socket
    /// (about 100 bytes), in which case a directory under /tmp named after it.
    var socketDirectory: URL {
        let preferred = directory.appendingPathComponent("socket")
        if preferred.path.utf8.count + 20 < 100 { return preferred }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in directory.path.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01b3 }
        return URL(fileURLWithPath: "/tmp/tenant-migrate-\(String(hash, radix: 16))")
    }

    /// Starts the server (or finds it already running) and returns how to reach it.
    public func start() throws -> RunningServer {
        let binaries = try ServerBinaries.locate()
        let runner = try CommandRunner()
        try runner.prepareDirectory(directory)
        try runner.prepareDirectory(socketDirectory)

        if let running = try runningServer(binaries: binaries, runner: runner) {
            logger.debug("reusing the running server in \(directory.path)")
            return running
        }
        if !FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("PG_VERSION").path) {
            try initializeCluster(binaries: binaries, runner: runner)
        }
        // A port found free can be taken before the server binds it (by another process, or as the
        // local port of an outgoing connection); when the port was ours to pick, pick another.
        var attempt = 1
        while true {
            let tcpPort = listensOnLoopback ? (port == 0 ? try LoopbackSocket().port : port) : nil
            do {
                return try startServer(binaries: binaries, runner: runner, tcpPort: tcpPort)
            } catch let error as EmbeddedPostgresError
                where tcpPort != nil && port == 0 && attempt < 5 && (error.output ?? "").contains("could not create any TCP/IP sockets") {
                logger.info("port \(tcpPort!) was taken meanwhile; trying another")
                attempt += 1
            }
        }
    }

    private func startServer(binaries: ServerBinaries, runner: CommandRunner, tcpPort: Int?) throws -> RunningServer {
        let socketPort = tcpPort ?? port
        var options = [
            "-k", socketDirectory.path,
            "-p", String(socketPort),
            "-c", "listen_addresses=\(tcpPort == nil ? "" : "127.0.0.1")",
        ]
        var allSettings = durability == .fast
            ? ["fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"]
            : [:]
        allSettings.merge(settings) { _, new in new }
        for (name, value) in allSettings.sorted(by: { $0.key < $1.key }) { options += ["-c", "\(name)=\(value)"] }
        logger.info("starting PostgreSQL in \(directory.path)")
        try runner.run(binaries.tool("pg_ctl"), [
            "-D", dataDirectory.path, "-l", logFile.path, "-w", "-t", "60",
            "-o", options.map(shellQuoted).joined(separator: " "),
            "start",
        ], failure: "could not start PostgreSQL (see \(logFile.path))", logTail: logFile)
        return RunningServer(
            embedded: self, binaries: binaries,
            socketDirectory: socketDirectory.path, socketPort: socketPort, tcpPort: tcpPort
        )
    }

    /// Stops the server if it is running (fast shutdown: sessions are disconnected).
    public func stop() throws {
        let binaries = try ServerBinaries.locate()
        let runner = try CommandRunner()
        guard try runningServer(binaries: binaries, runner: runner) != nil else { return }
        try runner.run(binaries.tool("pg_ctl"), ["-D", dataDirectory.path, "-m", "fast", "-w", "stop"],
                       failure: "could not stop PostgreSQL", logTail: logFile)
    }

    private func initializeCluster(binaries: ServerBinaries, runner: CommandRunner) throws {
        logger.info("creating a PostgreSQL cluster in \(dataDirectory.path)")
        try runner.prepareDirectory(dataDirectory)
        try runner.run(binaries.tool("initdb"), [
            "-D", dataDirectory.path, "-U", superuser, "--auth-local=trust", "--auth-host=scram-sha-256",
            "-E", "UTF8", "--no-locale", "--no-sync",
        ], failure: "initdb failed")
    }

    /// The running server in this directory, from `postmaster.pid`, if there is one.
    private func runningServer(binaries: ServerBinaries, runner: CommandRunner) throws -> RunningServer? {
        let pidFile = dataDirectory.appendingPathComponent("postmaster.pid")
        guard let contents = try? String(contentsOf: pidFile, encoding: .utf8) else { return nil }
        guard runner.succeeds(binaries.tool("pg_ctl"), ["-D", dataDirectory.path, "status"]) else { return nil }
        // Lines: pid, data dir, start time, port, socket dir, listen address, shmem key, status.
        let lines = contents.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count >= 6, let port = Int(lines[3]) else { return nil }
        let listen = lines[5].trimmingCharacters(in: .whitespaces)
        return RunningServer(
            embedded: self, binaries: binaries,
            socketDirectory: lines[4].isEmpty ? socketDirectory.path : lines[4], socketPort: port,
            tcpPort: listen.isEmpty ? nil : port
        )
    }
}

func shellQuoted(_ text: String) -> String {
    text.allSatisfy { $0.isLetter || $0.isNumber || "-_=./:,".contains($0) }
        ? text
        : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
