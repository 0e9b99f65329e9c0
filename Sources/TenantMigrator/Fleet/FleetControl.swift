import Foundation

/// Stops a fleet run from outside (Ctrl-C, SIGTERM): no new tenant starts; tenants in flight
/// finish, each committed or rolled back. A second stop also cancels the statements in flight.
/// Tenants still waiting for their locks have done nothing yet, so the first stop already cancels
/// them (they are reported as not started).
///
/// `--fail-fast` stops the run too, but that stop never counts towards cancelling: tenants in
/// flight when a tenant fails always finish, however many fail at once.
public final class FleetControl: @unchecked Sendable {
    private let lock = NSLock()
    private var stopRequests = 0
    private var haltedByFailure = false
    private var cancelHandlers: [@Sendable () -> Void] = []
    private var lockWaiters: [Int: @Sendable () -> Void] = [:]
    private var nextWaiter = 0

    public init() {}

    /// Asks the run to stop taking tenants; called twice, it also cancels the tenants in flight.
    ///
    /// - Returns: true when this call cancelled the tenants in flight (it was the second or later).
    @discardableResult
    public func stop() -> Bool {
        lock.lock()
        stopRequests += 1
        let cancelling = stopRequests >= 2
        let handlers = (cancelling ? cancelHandlers : []) + Array(lockWaiters.values)
        lock.unlock()
        handlers.forEach { $0() }
        return cancelling
    }

    /// Whether the run takes no new tenants: stopped from outside, or by a failure under fail-fast.
    public var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopRequests > 0 || haltedByFailure
    }

    /// Stops taking tenants after a failure (fail-fast), without counting as a ``stop()``.
    func haltAfterFailure() {
        lock.lock()
        haltedByFailure = true
        lock.unlock()
    }

    /// Runs `body` (a tenant taking its locks, before it changes anything) so that a ``stop()``
    /// meanwhile calls `cancel`, ending the wait. Throws `CancellationError` at once if the run is
    /// already stopped.
    public func whileWaitingForLocks<T>(cancel: @escaping @Sendable () -> Void, _ body: () throws -> T) throws -> T {
        lock.lock()
        if stopRequests > 0 {
            lock.unlock()
            throw CancellationError()
        }
        let id = nextWaiter
        nextWaiter += 1
        lockWaiters[id] = cancel
        lock.unlock()
        defer {
            lock.lock()
            lockWaiters[id] = nil
            lock.unlock()
        }
        return try body()
    }

    /// Whether ``stop()`` was called (not counting fail-fast halts).
    var isStopRequested: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopRequests > 0
    }

    /// Runs `handler` on the second ``stop()``, or at once if that already happened.
    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        lock.lock()
        let cancelled = stopRequests >= 2
        if !cancelled { cancelHandlers.append(handler) }
        lock.unlock()
        if cancelled { handler() }
    }
}
