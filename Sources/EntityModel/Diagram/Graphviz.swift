import ChildProcesses
import Foundation

/// Graphviz's `dot` program, which lays out DOT text and draws it as SVG.
///
/// Found on `PATH` (Debian: `apt-get install graphviz`; macOS: `brew install graphviz`). When it
/// is missing, ``svg(fromDOT:)`` throws ``GraphvizError/notInstalled``, whose message says so.
public struct Graphviz: Sendable {
    /// The `dot` executable.
    public let executable: URL

    /// Graphviz at `executable`.
    public init(executable: URL) {
        self.executable = executable
    }

    /// Graphviz's `dot` on `PATH`, or nil when it is not installed.
    public static func onPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> Graphviz? {
        let directories = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        return directories.map { URL(fileURLWithPath: String($0)).appendingPathComponent("dot") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
            .map(Graphviz.init(executable:))
    }

    /// Graphviz on `PATH`.
    ///
    /// - Throws: ``GraphvizError/notInstalled`` when `dot` is not there.
    public static func require() throws(GraphvizError) -> Graphviz {
        guard let graphviz = onPath() else { throw GraphvizError.notInstalled }
        return graphviz
    }

    /// Draws `dot` as an SVG document (`dot -Tsvg`).
    ///
    /// - Throws: ``GraphvizError/failed(status:message:)`` with what `dot` printed when it rejects
    ///   the text.
    public func svg(fromDOT dot: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("graphviz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("diagram.dot")
        let output = directory.appendingPathComponent("diagram.svg")
        try Data(dot.utf8).write(to: input)
        let outcome = try ChildProcess(executable.path, ["-Tsvg", "-o", output.path, input.path]).wait()
        guard outcome.status == 0 else {
            throw GraphvizError.failed(status: outcome.status, message: outcome.output.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return try String(contentsOf: output, encoding: .utf8)
    }

    /// Draws `dot` as an `<svg>` element to place inside an HTML page: the SVG document without
    /// its XML declaration and doctype.
    public func inlineSVG(fromDOT dot: String) throws -> String {
        let document = try svg(fromDOT: dot)
        guard let start = document.range(of: "<svg") else { return document }
        return String(document[start.lowerBound...])
    }
}

/// Why Graphviz could not draw a diagram.
public enum GraphvizError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `dot` is not on `PATH`.
    case notInstalled
    /// `dot` ended with `status`, printing `message`.
    case failed(status: Int32, message: String)

    public var description: String {
        switch self {
        case .notInstalled:
            "Graphviz is not installed (no dot on PATH), so there is no SVG; install it (Debian: apt-get install graphviz, "
                + "macOS: brew install graphviz), or use --format mermaid or --format dot"
        case let .failed(status, message):
            "Graphviz's dot rejected the diagram (exit status \(status)): \(message)"
        }
    }
}
