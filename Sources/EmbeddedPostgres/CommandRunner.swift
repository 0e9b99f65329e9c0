import ChildProcesses
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

    /// Runs a program to completion (``ChildProcess``): its exit status and output.
    package static func spawn(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        do {
            let outcome = try ChildProcess(path, arguments).wait()
            return (outcome.status, outcome.output)
        } catch let error as ChildProcessError {
            throw EmbeddedPostgresError(message: error.message)
        }
    }
}
