import Foundation
import Logging

/// A swift-log handler that keeps every message it receives, to check what a component logged.
struct RecordingLogHandler: LogHandler {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    /// The messages received, shared by every copy of the handler.
    final class Store: @unchecked Sendable {
        private let lock = NSLock()
        private var storage: [Entry] = []
        var entries: [Entry] { lock.withLock { storage } }
        func append(_ entry: Entry) { lock.withLock { storage.append(entry) } }
    }

    let store: Store
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    init(store: Store, logLevel: Logger.Level) {
        self.store = store
        self.logLevel = logLevel
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        store.append(Entry(level: event.level, message: event.message.description, metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
    }

    /// A logger that records into a new store, at `level` and above.
    static func logger(level: Logger.Level = .trace) -> (Logger, Store) {
        let store = Store()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(store: store, logLevel: level) }
        return (logger, store)
    }
}
