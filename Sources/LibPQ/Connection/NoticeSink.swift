import CLibPQ
import Logging

/// Forwards server notices (NOTICE, WARNING, …) to a swift-log `Logger`.
final class NoticeSink {
    let logger: Logger
    /// The server sent a FATAL error outside a query (it terminated the session, which libpq
    /// reports as a notice while the connection is idle): the connection is about to close.
    private(set) var receivedFatal = false
    init(logger: Logger) { self.logger = logger }

    func receive(_ result: OpaquePointer) {
        func field(_ code: Int32) -> String? { PQresultErrorField(result, code).map { String(cString: $0) } }
        let severity = field(TM_PG_DIAG_SEVERITY_NONLOCALIZED) ?? "NOTICE"
        if severity == "FATAL" || severity == "PANIC" { receivedFatal = true }
        let message = field(TM_PG_DIAG_MESSAGE_PRIMARY) ?? ""
        var metadata: Logger.Metadata = ["severity": "\(severity)"]
        if let state = field(TM_PG_DIAG_SQLSTATE) { metadata["sqlstate"] = "\(state)" }
        if let detail = field(TM_PG_DIAG_MESSAGE_DETAIL) { metadata["detail"] = "\(detail)" }
        let level: Logger.Level
        switch severity {
        case "WARNING": level = .warning
        case "NOTICE": level = .notice
        case "INFO", "LOG": level = .info
        default: level = .debug
        }
        logger.log(level: level, "\(message)", metadata: metadata)
    }
}

/// libpq's notice receiver callback: the context is the connection's ``NoticeSink``.
let noticeReceiver: PQnoticeReceiver = { context, result in
    guard let context, let result else { return }
    Unmanaged<NoticeSink>.fromOpaque(context).takeUnretainedValue().receive(result)
}
