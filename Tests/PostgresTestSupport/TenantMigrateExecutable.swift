import ChildProcesses
import Foundation
import LibPQ

/// The `tenant-migrate` executable built next to the test bundle (`swift test` builds every
/// product), for tests that run it as a real process.
public enum TenantMigrateExecutable {
    /// Its location, or nil when it is not there.
    public static let url: URL? = {
        var directories: [URL] = []
        #if os(Linux)
        directories.append(URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent())
        #endif
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        return directories.map { $0.appendingPathComponent("tenant-migrate") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// What a finished run printed, and how it ended.
    public struct Output: Sendable {
        /// The exit status, or 128 + the signal that ended the run.
        public let status: Int32
        /// The signal that ended the run, or nil when it exited.
        public let terminatingSignal: Int32?
        public let stdout: String
        public let stderr: String
    }

    /// Runs the executable on a database and a models directory:
    /// `tenant-migrate <arguments> --database-url <conninfo> --migrations <migrations>`.
    public static func run(_ arguments: [String], database conninfo: String, migrations: URL, mergingOutput: Bool = false) async throws -> Output {
        try await run(arguments + ["--database-url", conninfo, "--migrations", migrations.path], mergingOutput: mergingOutput)
    }

    /// Runs the executable to the end with `arguments` and an environment of the test process's
    /// own variables changed by `environment` (nil removes one). With `mergingOutput`, stderr goes
    /// to the same file as stdout, as with `> file 2>&1` (``Output/stdout`` holds both).
    public static func run(_ arguments: [String], environment: [String: String?] = [:], mergingOutput: Bool = false) async throws -> Output {
        try await start(arguments, environment: environment, mergingOutput: mergingOutput).finish()
    }

    /// Starts the executable with `arguments` and an environment of the test process's own
    /// variables changed by `environment` (nil removes one), every connection in strict
    /// one-statement mode. Output goes to files, not pipes: draining pipes would block threads of
    /// the cooperative pool. With `standardError`, stderr goes there instead (a
    /// ``PseudoTerminal``'s terminal, to see what the executable draws on one).
    public static func start(
        _ arguments: [String], environment: [String: String?] = [:], mergingOutput: Bool = false, standardError: FileHandle? = nil
    ) throws -> Running {
        guard let url else { throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "no tenant-migrate executable beside the tests"]) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tenant-migrate-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let outputURL = directory.appendingPathComponent("stdout"), errorURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        var variables = ProcessInfo.processInfo.environment
        variables[Connection.strictOneStatementVariable] = "1"
        for (name, value) in environment { variables[name] = value }
        let errorDestination: ChildProcess.Destination? = standardError.map { .descriptor($0.fileDescriptor) } ?? (mergingOutput ? nil : .file(errorURL.path))
        let process = try ChildProcess(url.path, arguments, environment: variables, standardOutput: .file(outputURL.path), standardError: errorDestination)
        return Running(process: process, directory: directory)
    }

    /// A run in progress.
    public final class Running: Sendable {
        /// The process, to signal it (``ChildProcess/send(_:)``) or see whether it still runs.
        public let process: ChildProcess
        let directory: URL
        var outputURL: URL { directory.appendingPathComponent("stdout") }
        var errorURL: URL { directory.appendingPathComponent("stderr") }

        init(process: ChildProcess, directory: URL) {
            self.process = process
            self.directory = directory
        }

        /// What the process wrote to stderr so far (nothing, when it was merged into stdout).
        public func errorOutputSoFar() throws -> String {
            try String(contentsOf: errorURL, encoding: .utf8)
        }

        /// Waits for the process to end (polling, off the cooperative pool's threads) and returns
        /// what it printed.
        public func finish() async throws -> Output {
            let outcome = try await process.finished()
            return Output(
                status: outcome.status,
                terminatingSignal: outcome.terminatingSignal,
                stdout: try String(contentsOf: outputURL, encoding: .utf8),
                stderr: try String(contentsOf: errorURL, encoding: .utf8)
            )
        }

        deinit { try? FileManager.default.removeItem(at: directory) }
    }
}
