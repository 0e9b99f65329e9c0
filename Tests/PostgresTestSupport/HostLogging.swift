import Foundation
import Logging

/// The test process as a host app: it bootstraps swift-log itself, once (swift-log allows one
/// bootstrap per process, and every suite of the run shares the process).
public enum HostLogging {
    private static let once: Void = {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .error
            return handler
        }
    }()

    /// Bootstraps swift-log the first time it is called; later calls do nothing.
    public static func bootstrap() {
        once
    }
}
