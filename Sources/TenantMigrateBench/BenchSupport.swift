import ChildProcesses
import Dispatch
import EmbeddedPostgres
import Foundation
import LibPQ
import Logging

/// The PostgreSQL server a benchmark runs against: `DATABASE_URL` when set, otherwise a private
/// ``EmbeddedPostgres`` cluster under /tmp that the benchmark starts and stops.
struct BenchServer {
    /// libpq conninfo for the benchmark database.
    let conninfo: String
    /// The directory of the server's programs, when the benchmark started the server.
    let binDirectory: URL?
    /// The embedded server to stop at the end, if the benchmark started one.
    private let embedded: RunningServer?

    /// - Parameter durability: how the embedded server trades durability for speed (`.fast`: fsync,
    ///   synchronous_commit and full_page_writes off).
    static func start(directory path: String, durability: EmbeddedPostgres.Durability = .durable) throws -> BenchServer {
        if let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty {
            print("server: DATABASE_URL (\(ConnectionString.redacted(url)))")
            return BenchServer(conninfo: url, binDirectory: nil, embedded: nil)
        }
        var logger = Logger(label: "EmbeddedPostgres")
        logger.logLevel = .warning
        let started = ContinuousClock.now
        let server = try EmbeddedPostgres(directory: URL(fileURLWithPath: path), durability: durability, logger: logger).start()
        print("server: embedded PostgreSQL in \(path) (ready in \(format(ContinuousClock.now - started)))")
        return BenchServer(conninfo: server.connectionString(), binDirectory: server.binDirectory, embedded: server)
    }

    /// Stops the embedded server, if the benchmark started one.
    func stop() {
        guard let embedded else { return }
        do {
            try embedded.stop()
            print("server: stopped")
        } catch {
            print("server: could not stop: \(error)")
        }
    }

    /// A program from the server's bin directory, else from PATH.
    func program(_ name: String) throws -> String {
        if let binDirectory {
            let candidate = binDirectory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw BenchError("\(name) was found neither in the server's bin directory nor on PATH")
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs `body` and returns how long it took.
func measure(_ body: () throws -> Void) rethrows -> Duration {
    let start = ContinuousClock.now
    try body()
    return ContinuousClock.now - start
}


/// `1.234 s` or `56.7 ms`.
func format(_ duration: Duration) -> String {
    let seconds = duration.inSeconds
    return seconds >= 1 ? String(format: "%.3f s", seconds) : String(format: "%.1f ms", seconds * 1000)
}

/// `1,000,000`.
func format(count: Int) -> String {
    let digits = Array(String(count))
    var text = ""
    for (index, digit) in digits.enumerated() {
        if index > 0, (digits.count - index) % 3 == 0 { text += "," }
        text.append(digit)
    }
    return text
}

/// The best and the median of several timings.
struct Timings {
    private(set) var all: [Duration] = []
    mutating func add(_ duration: Duration) { all.append(duration) }
    var best: Duration { all.min() ?? .zero }
    var median: Duration {
        let sorted = all.sorted()
        guard !sorted.isEmpty else { return .zero }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}

/// Runs a program to completion (stdin from /dev/null, stdout and stderr to a temporary file)
/// and returns its exit status and output.
func runProgram(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let outcome = try ChildProcess(path, arguments).wait()
    return (outcome.status, outcome.output)
}

/// Runs each of `files` in a psql session of its own, all at once (output discarded, stopping at
/// the first error); returns the wall time.
func runPsqlSessions(_ psql: String, conninfo: String, files: [URL]) throws -> Duration {
    let failures = FleetBench.Failures()
    let elapsed = measure {
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            do {
                let (status, output) = try runProgram(psql, ["-X", "-q", "-o", "/dev/null", "-v", "ON_ERROR_STOP=1", "-d", conninfo, "-f", files[index].path])
                if status != 0 { failures.add("psql session \(index + 1) exited with \(status): \(output.prefix(2000))") }
            } catch {
                failures.add("\(error)")
            }
        }
    }
    if let failure = failures.first { throw BenchError(failure) }
    return elapsed
}

/// A small, fast, seedable generator (SplitMix64), so every run generates the same rows.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
