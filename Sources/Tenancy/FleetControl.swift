import Foundation

/// Stops a fleet run from outside (Ctrl-C, SIGTERM): no new tenant starts; tenants in flight
/// finish, each committed or rolled back. A second stop also cancels the statements in flight.
///
/// `--fail-fast` stops the run too, but that stop never counts towards cancelling: tenants in
/// flight when a tenant fails always finish, however many fail at once.
public final class FleetControl: @unchecked Sendable {
    private let lock = NSLock()
    private var stopRequests = 0
    private var haltedByFailure = false
    private var cancelHandlers: [@Sendable () -> Void] = []

    public init() {}

    /// Asks the run to stop taking tenants; called twice, it also cancels the tenants in flight.
    ///
    /// - Returns: true when this call cancelled the tenants in flight (it was the second or later).
    @discardableResult
    public func stop() -> Bool {
        lock.lock()
        stopRequests += 1
        let cancelling = stopRequests >= 2
        let handlers = cancelling ? cancelHandlers : []
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

    /// Runs `handler` on the second ``stop()``, or at once if that already happened.
    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        lock.lock()
        let cancelled = stopRequests >= 2
        if !cancelled { cancelHandlers.append(handler) }
        lock.unlock()
        if cancelled { handler() }
    }
}
