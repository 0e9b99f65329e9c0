import Foundation

/// A program started with posix_spawn, stdin from /dev/null and stdout and stderr captured in a
/// temporary file; waited for with `wait4`, which also gives its peak memory.
///
/// A file rather than a pipe: `pg_ctl start` leaves a daemon behind, and a daemon that inherited
/// a pipe would keep it open forever. Foundation's `Process` is avoided for the same reason, and
/// because its child reaping is unreliable off the main thread on Linux (and it does not report
/// a child's resource usage). The server programs, the benchmarks and the tests run programs so.
public final class ChildProcess {
    /// How a program ended.
    public struct Outcome: Sendable {
        /// The exit status, or 128 + the signal that ended it.
        public let status: Int32
        /// What it wrote to stdout and stderr.
        public let output: String
        /// Its peak resident memory, in KiB: `ru_maxrss`, which on Linux also holds the starting
        /// process's own peak (a spawned child starts as a copy of it), unless the program was started
        /// with `measuringPeakMemory`, where GNU time measured the program alone.
        public let peakMemoryKiB: Int
    }

    public let path: String
    private let pid: pid_t
    private let outputPath: String
    /// Where `/usr/bin/time` writes the program's peak memory, when it measures it.
    private let peakPath: String?

    /// GNU time, which reports the peak memory of the program it starts, and of it alone.
    static let time = "/usr/bin/time"

    /// Starts `path` with `arguments`, in this process's environment or in `environment`.
    ///
    /// - Parameter measuringPeakMemory: start it through GNU time (`/usr/bin/time`, when there), so
    ///   that ``Outcome/peakMemoryKiB`` is the program's own peak, whatever the size of this process.
    public init(_ path: String, _ arguments: [String], environment: [String: String]? = nil, measuringPeakMemory: Bool = false) throws {
        self.path = path
        let base = NSTemporaryDirectory() + "tenant-migrate-\(getpid())-\(UUID().uuidString)"
        outputPath = base + ".out"
        peakPath = measuringPeakMemory && FileManager.default.isExecutableFile(atPath: Self.time) ? base + ".peak" : nil
        let (program, arguments) = peakPath.map { (Self.time, ["-f", "%M", "-o", $0, path] + arguments) } ?? (path, arguments)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { (argv + (envp ?? [])).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = envp.map { posix_spawn(&pid, program, &actions, nil, argv, $0) } ?? posix_spawn(&pid, program, &actions, nil, argv, environ)
        guard spawned == 0 else {
            unlink(outputPath)
            throw EmbeddedPostgresError(message: "cannot run \(path): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
    }

    deinit {
        unlink(outputPath)
        if let peakPath { unlink(peakPath) }
    }

    /// Waits until the program ends.
    public func wait() throws -> Outcome {
        while true {
            if let outcome = try reap(blocking: true) { return outcome }
        }
    }

    /// How the program ended, or nil while it still runs (without waiting).
    public func poll() throws -> Outcome? {
        try reap(blocking: false)
    }

    private func reap(blocking: Bool) throws -> Outcome? {
        var status: Int32 = 0
        var usage = rusage()
        let reaped = wait4(pid, &status, blocking ? 0 : WNOHANG, &usage)
        if reaped == 0 || (reaped < 0 && errno == EINTR) { return nil }
        guard reaped == pid else { throw EmbeddedPostgresError(message: "waiting for \(path) failed: \(String(cString: strerror(errno)))") }
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED / WEXITSTATUS, which Swift does not import as macros.
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        // GNU time's last line is the peak, in KiB (a line before it tells of a signal, if any).
        let measured = peakPath.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }?
            .split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        return Outcome(status: exitStatus, output: output, peakMemoryKiB: measured ?? usage.ru_maxrss)
    }
}
