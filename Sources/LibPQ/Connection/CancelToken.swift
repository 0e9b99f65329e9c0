import CLibPQ
import Foundation

/// Cancels whatever statement its connection is running. Safe to use from any thread or task,
/// for statement timeouts and Ctrl-C.
public final class CancelToken: @unchecked Sendable {
    // PQcancel is documented as thread-safe; the lock only guards the handle's lifetime.
    private let lock = NSLock()
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { PQfreeCancel(handle) }

    /// Asks the server to cancel the running statement. It then fails with SQLSTATE 57014
    /// (``SQLState/queryCanceled``). Returns false if the request could not be sent.
    @discardableResult
    public func cancel() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        var buffer = [CChar](repeating: 0, count: 256)
        return PQcancel(handle, &buffer, Int32(buffer.count)) == 1
    }
}
