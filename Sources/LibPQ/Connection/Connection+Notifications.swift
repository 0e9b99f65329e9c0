import CLibPQ
import Foundation

/// A notification from `NOTIFY` or `pg_catalog.pg_notify`, received on a connection that listens
/// to its channel.
public struct PQNotification: Sendable, Hashable {
    /// The channel it was sent on.
    public var channel: String
    /// The payload ("" when none was given).
    public var payload: String
    /// The backend process that sent it.
    public var senderPID: Int32
}

extension Connection {
    /// Starts listening to `channel` (`LISTEN`, the name quoted): notifications sent on it are
    /// queued on this connection until read with ``notifications()`` or
    /// ``waitForNotifications(timeout:)``.
    public func listen(_ channel: String) throws {
        try execute("LISTEN \(id: channel)")
    }

    /// The notifications that have arrived so far, without waiting and without a round trip.
    ///
    /// - Throws: ``PQError`` of kind `.client` when the connection turns out to be lost.
    public func notifications() throws -> [PQNotification] {
        guard PQconsumeInput(handle) == 1 else { throw PQError.client(handle, "the connection was lost while reading notifications") }
        var received: [PQNotification] = []
        while let notification = PQnotifies(handle) {
            received.append(PQNotification(
                channel: String(cString: notification.pointee.relname),
                payload: notification.pointee.extra.map { String(cString: $0) } ?? "",
                senderPID: notification.pointee.be_pid
            ))
            PQfreemem(notification)
        }
        return received
    }

    /// Waits until at least one notification arrives or `timeout` passes, and returns what arrived
    /// (empty after a timeout). Blocks the calling thread; use it on a connection of its own.
    ///
    /// - Throws: ``PQError`` of kind `.client` when the connection is lost meanwhile.
    public func waitForNotifications(timeout: Duration) throws -> [PQNotification] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let received = try notifications()
            let remaining = deadline - ContinuousClock.now
            guard received.isEmpty, remaining > .zero else { return received }
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(max(1, remaining.inMilliseconds.rounded(.up))))
            if ready < 0, errno != EINTR {
                throw PQError(kind: .client, message: "poll failed: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Where the session stands with respect to transactions, as libpq last saw it (no round trip).
    public var transactionStatus: TransactionStatus {
        switch PQtransactionStatus(handle) {
        case PQTRANS_IDLE: .idle
        case PQTRANS_ACTIVE: .active
        case PQTRANS_INTRANS: .inTransaction
        case PQTRANS_INERROR: .inFailedTransaction
        default: .unknown
        }
    }

    /// Whether another user may take the connection as it is: it is healthy and idle, with no
    /// transaction open. Reads whatever the server already sent, without waiting and without a
    /// round trip, so that a backend terminated while the connection sat idle (an administrator's
    /// `pg_terminate_backend`, a server restart) is noticed here rather than by the next statement.
    public var isReusable: Bool {
        // The first read takes the server's farewell (a FATAL error, which PQisBusy parses and
        // libpq hands to the notice receiver), the second sees the closed socket if it is closed yet.
        for _ in 0..<2 where PQconsumeInput(handle) == 1 { _ = PQisBusy(handle) }
        return isHealthy && transactionStatus == .idle && !noticeSink.takeUnretainedValue().receivedFatal
    }

    /// ``Connection/transactionStatus``: libpq's `PQtransactionStatus`.
    public enum TransactionStatus: Sendable, Hashable {
        /// No transaction open, nothing running.
        case idle
        /// A statement is running.
        case active
        /// In a transaction block that has not failed.
        case inTransaction
        /// In a failed transaction block (only a rollback helps).
        case inFailedTransaction
        /// The connection is bad.
        case unknown
    }
}
