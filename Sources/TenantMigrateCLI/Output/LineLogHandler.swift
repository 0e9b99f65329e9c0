import Foundation
import Logging

/// The runner's own log handler: each record as one whole line on stderr
/// (`2026-05-01T10:00:00Z warning tenant-migrate: tenant=acme step=v1 → v2 <message>`), the level
/// in colour on a terminal.
///
/// A tenant's failed migration is reported by the command itself (its result line, the fleet's
/// report, or the command's error), so the runner's log record of it — level `error`, with the
/// `tenant` and `step` it failed in as metadata — is left out unless `--verbose`: the error is
/// printed once.
struct LineLogHandler: LogHandler {
    let label: String
    /// Whether tenant failures are logged too (`--verbose`).
    let showsTenantFailures: Bool
    var logLevel: Logger.Level = .warning
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        if !showsTenantFailures, event.level == .error, merged["tenant"] != nil, merged["step"] != nil { return }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let style = TextStyle.error
        let level = event.level >= .error ? style.red("\(event.level)") : (event.level == .warning ? style.yellow("\(event.level)") : "\(event.level)")
        let time = Date().formatted(.iso8601)
        Console.diagnostic("\(style.dim(time)) \(level) \(label):\(fields.isEmpty ? "" : " " + fields) \(event.message)")
    }
}
