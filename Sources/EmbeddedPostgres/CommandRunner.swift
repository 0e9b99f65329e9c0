import Foundation

/// Runs the server programs, as the `postgres` user when this process is root.
package struct CommandRunner {
    /// The account to run as, when root.
    private let serverAccount: (uid: uid_t, gid: gid_t)?

    init() throws {
        if geteuid() == 0 {
            guard let account = getpwnam("postgres") else {
                throw EmbeddedPostgresError(message: "running as root, but there is no `postgres` user to run the server as (PostgreSQL refuses to run as root). Create one (apt-get install postgresql does) or run as another user.")
            }
            serverAccount = (account.pointee.pw_uid, account.pointee.pw_gid)
        } else {
            serverAccount = nil
        }
    }

    /// Creates `directory` (and parents) and, as root, hands it to the server account.
    func prepareDirectory(_ directory: URL) throws {
        do {
            // Missing parents stay traversable (0755), so the server account can reach the leaf.
            let parent = directory.deletingLastPathComponent()
            if !FileManager.default.fileExists(atPath: parent.path) {
                try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            }
            if !FileManager.default.fileExists(atPath: directory.path) {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            }
        } catch {
            throw EmbeddedPostgresError(message: "cannot create \(directory.path): \(error.localizedDescription)")
        }
        if let serverAccount, chown(directory.path, serverAccount.uid, serverAccount.gid) != 0 {
            throw EmbeddedPostgresError(message: "cannot give \(directory.path) to the postgres user: \(String(cString: strerror(errno)))")
        }
        try checkReachable(directory.deletingLastPathComponent())
    }

    /// As root, every directory above the cluster must be searchable by the server account.
    private func checkReachable(_ directory: URL) throws {
        guard let serverAccount else { return }
        var path = ""
        for component in directory.standardizedFileURL.pathComponents.dropFirst() {
            path += "/" + component
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            let mode = info.st_mode
            let searchable = (info.st_uid == serverAccount.uid && mode & 0o100 != 0)
                || (info.st_gid == serverAccount.gid && mode & 0o010 != 0)
                || mode & 0o001 != 0
            guard searchable else {
                throw EmbeddedPostgresError(message: "the postgres user cannot reach \(directory.path): \(path) is not searchable by it "
                    + "(mode \(String(mode & 0o777, radix: 8))). Put the cluster elsewhere (for the CLI: TENANT_MIGRATE_EMBEDDED_DIR=/tmp/…), "
                    + "or make \(path) searchable (chmod o+x).")
            }
        }
    }

    /// Runs `tool`, throwing with its output (and the log's tail) if it fails.
    func run(_ tool: URL, _ arguments: [String], failure: String, logTail: URL? = nil) throws {
        let (status, output) = try execute(tool, arguments)
        guard status == 0 else {
            var details = output
            if let logTail, let log = try? String(contentsOf: logTail, encoding: .utf8) {
                details += "\n" + log.split(separator: "\n").suffix(10).joined(separator: "\n")
            }
            throw EmbeddedPostgresError(message: "\(failure) (\(tool.lastPathComponent) exited with \(status))", output: details)
        }
    }

    /// Whether `tool` exits with 0.
    func succeeds(_ tool: URL, _ arguments: [String]) -> Bool {
        (try? execute(tool, arguments).status) == 0
    }

    private func execute(_ tool: URL, _ arguments: [String]) throws -> (status: Int32, output: String) {
        // In /tmp: the server account may not be able to read the caller's working directory.
        let command = ["/usr/bin/env", "--chdir=/tmp", tool.path] + arguments
        if serverAccount != nil {
            return try Self.spawn("/usr/sbin/runuser", ["-u", "postgres", "--"] + command)
        }
        return try Self.spawn(command[0], Array(command.dropFirst()))
    }

    /// The standard output of a program found on PATH.
    static func output(of program: String, _ arguments: [String]) throws -> String {
        let (status, output) = try spawn("/usr/bin/env", [program] + arguments)
        guard status == 0 else { throw EmbeddedPostgresError(message: "\(program) failed", output: output) }
        return output
    }

    /// Runs a program to completion with posix_spawn and waitpid, with stdin from
    /// /dev/null and stdout and stderr captured in a temporary file.
    ///
    /// A file rather than a pipe: `pg_ctl start` leaves a daemon behind, and a daemon that
    /// inherited a pipe would keep it open forever. Foundation's `Process` is avoided for the same
    /// reason, and because its child reaping is unreliable off the main thread on Linux.
    package static func spawn(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let outputPath = NSTemporaryDirectory() + "tenant-migrate-\(getpid())-\(UUID().uuidString).out"
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var pid: pid_t = 0
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw EmbeddedPostgresError(message: "cannot run \(path): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw EmbeddedPostgresError(message: "waiting for \(path) failed: \(String(cString: strerror(errno)))") }
        }
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED / WEXITSTATUS, which Swift does not import as macros.
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exitStatus, output)
    }
}
