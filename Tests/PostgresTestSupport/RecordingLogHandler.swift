import LibPQ
import Logging

/// A swift-log handler that keeps every message it receives, to check what a component logged.
public struct RecordingLogHandler: LogHandler {
    /// One message received.
    public struct Entry: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: Logger.Metadata
    }

    /// The messages received, shared by every copy of the handler.
    public final class Store: Sendable {
        private let received = Locked<[Entry]>([])

        public init() {}

        /// Every message so far, in order.
        public var entries: [Entry] { received.value }

        /// The text of the messages logged at exactly `level`.
        public func messages(at level: Logger.Level) -> [String] {
            entries.filter { $0.level == level }.map(\.message)
        }

        /// Forgets what was received so far.
        public func removeAll() {
            received.withLock { $0.removeAll() }
        }

        fileprivate func append(_ entry: Entry) {
            received.withLock { $0.append(entry) }
        }
    }

    public let store: Store
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]

    public init(store: Store, logLevel: Logger.Level) {
        self.store = store
        self.logLevel = logLevel
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        store.append(Entry(level: event.level, message: event.message.description, metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
    }

    /// A logger that records into a new store, at `level` and above.
    public static func logger(level: Logger.Level = .trace) -> (Logger, Store) {
        let store = Store()
        var logger = Logger(label: "test") { _ in RecordingLogHandler(store: store, logLevel: level) }
        logger.logLevel = level
        return (logger, store)
    }
}
