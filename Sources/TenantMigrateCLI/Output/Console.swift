import Foundation
import Logging

/// Output helpers: stdout for results, stderr for notes and logs.
enum Console {
    nonisolated(unsafe) private static var loggingBootstrapped = false
    private static let lock = NSLock()

    /// Sends swift-log output to stderr: warnings by default, every SQL statement with --verbose.
    /// Once per process, and only when the runner bootstraps logging (``CommandEnvironment/bootstrapsLogging``):
    /// as a host app's subcommand, the host's handler gets the logs.
    static func bootstrapLogging(verbose: Bool) {
        lock.lock()
        defer { lock.unlock() }
        guard CommandEnvironment.bootstrapsLogging, !loggingBootstrapped else { return }
        loggingBootstrapped = true
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .warning
            return handler
        }
    }

    static func logger(verbose: Bool) -> Logger {
        var logger = Logger(label: "tenant-migrate")
        logger.logLevel = verbose ? .debug : .warning
        return logger
    }

    /// A note for the user on stderr.
    static func note(_ text: String) {
        FileHandle.standardError.write(Data("\(CommandEnvironment.commandName): \(text)\n".utf8))
    }

    /// Prints `value` as pretty, key-sorted JSON on stdout.
    static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
