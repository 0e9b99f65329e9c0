import Foundation

/// A program started with posix_spawn and reaped with `wait4`: stdin from /dev/null, stdout and
/// stderr captured in a temporary file (or sent where the caller says), and its peak memory measured.
///
/// Every program the package runs goes through this type: the embedded server's programs, Graphviz,
/// the benchmarks' psql sessions, and the tests' `tenant-migrate` and `pg_dump` runs.
/// Foundation's `Process` is not used, because on Linux its reaping is not reliable: two processes
/// that end at the same moment can leave `waitUntilExit()` waiting forever beside a zombie (a test
/// run hung so for 80 minutes), and a daemon that inherited a descriptor it watches (`pg_ctl start`
/// leaves one behind) keeps it from ever seeing the end. Output goes to files rather than pipes
/// for the same reason, and so that nobody has to drain a pipe while waiting.
///
/// A `ChildProcess` may be shared between tasks: its state is behind a lock.
public final class ChildProcess: @unchecked Sendable {
    /// How a program ended.
    public struct Outcome: Sendable {
        /// The exit status, or 128 + the signal that ended it.
        public let status: Int32
        /// The signal that ended the program, or nil when it exited (with ``status``).
        public let terminatingSignal: Int32?
        /// What it wrote to the captured output (stdout and stderr unless they were sent elsewhere).
        public let output: String
        /// Its peak resident memory in KiB: GNU time's count where the program ran under it
        /// (`measuringPeakMemory`), otherwise the largest `VmHWM` read from `/proc/<pid>/status`
        /// while it ran.
        public let peakMemoryKiB: Int
        /// Whether ``peakMemoryKiB`` is exact (counted by GNU time when the program ended) rather
        /// than sampled, which can miss the program's last moments on a busy machine.
        public let peakMemoryIsExact: Bool
    }

    /// Where a program's stdout or stderr goes.
    public enum Destination: Sendable {
        /// A file, created or truncated.
        case file(String)
        /// An open descriptor of this process (a terminal, say), duplicated into the child.
        case descriptor(Int32)
    }

    /// GNU time (Debian package `time`), which runs a program in a process it forks itself, so
    /// that `ru_maxrss` counts only the program's own memory, and writes it down at its end.
    public static let gnuTime = "/usr/bin/time"

    /// The program.
    public let path: String
    /// The program's process id (GNU time's, when it runs under GNU time).
    public let processIdentifier: pid_t
    private let capturePath: String
    /// Where GNU time writes the program's peak, when it runs under GNU time.
    private let peakPath: String?
    private let lock = NSLock()
    /// The largest `VmHWM` read so far, in KiB.
    private var sampledPeakKiB = 0
    /// How the program ended, once it is reaped.
    private var ended: Outcome?

    /// How often ``wait()`` and ``finished()`` look at the program while it runs, in microseconds.
    private static let sampleMicroseconds: useconds_t = 20_000

    /// Starts `path` with `arguments`, in this process's environment or in `environment`.
    ///
    /// - Parameters:
    ///   - standardOutput: where stdout goes; by default a temporary file, read into the outcome's
    ///     ``Outcome/output``.
    ///   - standardError: where stderr goes; by default wherever stdout goes.
    ///   - measuringPeakMemory: run the program under ``gnuTime`` where it is installed, so that
    ///     the outcome's peak is exact; without GNU time, or without the flag, the peak is sampled.
    /// - Throws: ``ChildProcessError`` when the program cannot be started.
    public init(
        _ path: String, _ arguments: [String], environment: [String: String]? = nil,
        standardOutput: Destination? = nil, standardError: Destination? = nil, measuringPeakMemory: Bool = false
    ) throws {
        self.path = path
        let base = NSTemporaryDirectory() + "child-process-\(getpid())-\(UUID().uuidString)"
        capturePath = base + ".out"
        peakPath = measuringPeakMemory && FileManager.default.isExecutableFile(atPath: Self.gnuTime) ? base + ".peak" : nil
        let (program, argumentList) = peakPath.map { (Self.gnuTime, ["-f", "%M", "-o", $0, path] + arguments) } ?? (path, arguments)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        func direct(_ destination: Destination, to descriptor: Int32) {
            switch destination {
            case .file(let file): posix_spawn_file_actions_addopen(&actions, descriptor, file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            case .descriptor(let open): posix_spawn_file_actions_adddup2(&actions, open, descriptor)
            }
        }
        direct(standardOutput ?? .file(capturePath), to: 1)
        if let standardError { direct(standardError, to: 2) } else { posix_spawn_file_actions_adddup2(&actions, 1, 2) }

        let argv = ([program] + argumentList).map { strdup($0) } + [nil]
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { (argv + (envp ?? [])).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = envp.map { posix_spawn(&pid, program, &actions, nil, argv, $0) } ?? posix_spawn(&pid, program, &actions, nil, argv, environ)
        guard spawned == 0 else {
            unlink(capturePath)
            throw ChildProcessError(message: "cannot run \(program): \(String(cString: strerror(spawned)))")
        }
        processIdentifier = pid
    }

    deinit {
        unlink(capturePath)
        if let peakPath { unlink(peakPath) }
    }

    /// Whether the program still runs (reaping it if it has ended).
    public var isRunning: Bool { (try? poll()) == nil }

    /// Sends `signal` to the program (SIGINT, SIGKILL...), if it still runs.
    public func send(_ signal: Int32) {
        lock.withLock { if ended == nil { _ = kill(processIdentifier, signal) } }
    }

    /// Waits until the program ends, blocking this thread, and looking at its memory every 20 ms.
    public func wait() throws -> Outcome {
        while true {
            if let outcome = try poll() { return outcome }
            usleep(Self.sampleMicroseconds)
        }
    }

    /// Waits until the program ends without blocking a thread: it is polled every 20 ms.
    public func finished() async throws -> Outcome {
        while true {
            if let outcome = try poll() { return outcome }
            try await Task.sleep(for: .microseconds(Self.sampleMicroseconds))
        }
    }

    /// How the program ended, or nil while it still runs (without waiting). Each call also reads
    /// the program's peak memory so far; callers that poll often get the most exact sampled peak.
    public func poll() throws -> Outcome? {
        try lock.withLock {
            if let ended { return ended }
            samplePeakMemory()
            var status: Int32 = 0
            var usage = rusage()
            let reaped = wait4(processIdentifier, &status, WNOHANG, &usage)
            if reaped == 0 || (reaped < 0 && errno == EINTR) { return nil }
            guard reaped == processIdentifier else {
                throw ChildProcessError(message: "waiting for \(path) failed: \(String(cString: strerror(errno)))")
            }
            let output = (try? String(contentsOfFile: capturePath, encoding: .utf8)) ?? ""
            // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as macros.
            let signal: Int32? = (status & 0x7f) == 0 ? nil : status & 0x7f
            let exitStatus = signal.map { 128 + $0 } ?? (status >> 8) & 0xff
            // GNU time writes "Command exited with non-zero status N" before the count when the
            // program fails, and "Command terminated by signal N" when a signal ends it.
            let counted = peakPath.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }?
                .split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            let outcome = Outcome(
                status: exitStatus, terminatingSignal: signal, output: output,
                peakMemoryKiB: counted ?? (sampledPeakKiB > 0 ? sampledPeakKiB : usage.ru_maxrss), peakMemoryIsExact: counted != nil
            )
            ended = outcome
            return outcome
        }
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
        let descriptor = open("/proc/\(processIdentifier)/status", O_RDONLY | O_CLOEXEC)
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

/// A program could not be started or waited for.
public struct ChildProcessError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, in a sentence.
    public let message: String

    public init(message: String) {
        self.message = message
    }

    public var description: String { message }
}
