import Foundation

/// A program started with posix_spawn, stdin from /dev/null and stdout and stderr captured in a
/// temporary file; waited for with `wait4`, and its peak memory followed while it runs.
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
        /// Its peak resident memory in KiB: the largest `VmHWM` read from `/proc/<pid>/status`
        /// while it ran (see ``ChildProcess/peakMemoryKiB``).
        public let peakMemoryKiB: Int
    }

    public let path: String
    private let pid: pid_t
    private let outputPath: String
    /// The largest `VmHWM` read so far, in KiB.
    private var sampledPeakKiB = 0

    /// How often ``wait()`` looks at the program while it runs.
    private static let sampleInterval: useconds_t = 20_000

    /// Starts `path` with `arguments`, in this process's environment or in `environment`.
    public init(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws {
        self.path = path
        outputPath = NSTemporaryDirectory() + "tenant-migrate-\(getpid())-\(UUID().uuidString).out"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { (argv + (envp ?? [])).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = envp.map { posix_spawn(&pid, path, &actions, nil, argv, $0) } ?? posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard spawned == 0 else {
            unlink(outputPath)
            throw EmbeddedPostgresError(message: "cannot run \(path): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
    }

    deinit { unlink(outputPath) }

    /// Waits until the program ends, looking at its memory every 20 ms meanwhile.
    public func wait() throws -> Outcome {
        while true {
            if let outcome = try poll() { return outcome }
            usleep(Self.sampleInterval)
        }
    }

    /// How the program ended, or nil while it still runs (without waiting). Each call also reads
    /// the program's peak memory so far; callers that poll often get the most exact peak.
    public func poll() throws -> Outcome? {
        samplePeakMemory()
        var status: Int32 = 0
        var usage = rusage()
        let reaped = wait4(pid, &status, WNOHANG, &usage)
        if reaped == 0 || (reaped < 0 && errno == EINTR) { return nil }
        guard reaped == pid else { throw EmbeddedPostgresError(message: "waiting for \(path) failed: \(String(cString: strerror(errno)))") }
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED / WEXITSTATUS, which Swift does not import as macros.
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Outcome(status: exitStatus, output: output, peakMemoryKiB: sampledPeakKiB > 0 ? sampledPeakKiB : usage.ru_maxrss)
    }

    /// Reads the program's own high-water mark of resident memory (`VmHWM`).
    ///
    /// Not `wait4`'s `ru_maxrss`: posix_spawn starts the child in this process's memory (vfork),
    /// and Linux carries that memory's high-water mark into the child's `ru_maxrss` when it execs,
    /// so a program spawned from a 90 MiB test process reports at least 90 MiB whatever it uses.
    /// `VmHWM` belongs to the program's own address space, from its exec on. It is monotonic, so
    /// reading it now and then misses at most what the program grew in its last moments. Where
    /// `/proc` is missing (macOS), `ru_maxrss` is reported instead.
    private func samplePeakMemory() {
        // Read with read(2): /proc files report a size of 0, which Foundation's readers trust.
        let descriptor = open("/proc/\(pid)/status", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kib = line.dropFirst("VmHWM:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) } ?? 0
            sampledPeakKiB = max(sampledPeakKiB, kib)
        }
    }
}
