import Foundation
import Logging

/// Where the commands write: results on stdout, notes and logs on stderr, each line whole
/// (``StandardStream``). On a terminal, a line on stderr first clears the line it starts on, so
/// that a note or a log line never runs on from a live progress line.
struct Console: Sendable {
    /// The runner's name, which notes start with.
    let commandName: String

    /// A note for the user on stderr: `tenant-migrate: <text>`.
    func note(_ text: String) {
        Console.diagnostic("\(commandName): \(text)")
    }

    /// A result line on stdout, its control characters escaped (``TerminalText``).
    static func line(_ text: String) {
        StandardStream.output.writeLine(TerminalText.lines(text))
    }

    /// A line on stderr (a note, a log line, a plain progress line), its control characters
    /// escaped (``TerminalText``).
    static func diagnostic(_ text: String) {
        StandardStream.error.writeLine((StandardStream.error.isTerminal ? clearLine : "") + TerminalText.lines(text))
    }

    /// Returns the cursor to the start of the line and clears it (a terminal's escape sequence).
    static let clearLine = "\r\u{1B}[K"

    /// Prints `value` as pretty, key-sorted JSON on stdout: the whole document in one write.
    static func printJSON<T: Encodable>(_ value: T) throws {
        StandardStream.output.writeLine(try json(value))
    }

    /// `value` as the commands print JSON: pretty, keys sorted, dates in ISO 8601.
    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// The commands' logger: warnings by default, every SQL statement with `--verbose`; whole
    /// lines on stderr, or the process's swift-log handler (a host app's).
    static func logger(label: String, verbose: Bool, destination: TenantMigrateConfiguration.Logging) -> Logger {
        var logger: Logger
        switch destination {
        case .standardError:
            logger = Logger(label: label) { LineLogHandler(label: $0, showsTenantFailures: verbose) }
        case .loggingSystem:
            logger = Logger(label: label)
        }
        logger.logLevel = verbose ? .debug : .warning
        return logger
    }
}
