import CLibPQ

/// Cancels whatever statement its connection is running. Safe to use from any thread or task,
/// for statement timeouts and Ctrl-C.
public final class CancelToken: @unchecked Sendable {
    // PQcancel is documented as thread-safe; the lock only serializes the requests.
    private let handle: Locked<OpaquePointer>

    init(_ handle: OpaquePointer) { self.handle = Locked(handle) }

    deinit { handle.withLock { PQfreeCancel($0) } }

    /// Asks the server to cancel the running statement. It then fails with SQLSTATE 57014
    /// (``SQLState/queryCanceled``). Returns false if the request could not be sent.
    @discardableResult
    public func cancel() -> Bool {
        handle.withLock { handle in
            var buffer = [CChar](repeating: 0, count: 256)
            return PQcancel(handle, &buffer, Int32(buffer.count)) == 1
        }
    }
}
