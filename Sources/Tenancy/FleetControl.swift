import Foundation

/// Stops a fleet run from outside (Ctrl-C, SIGTERM): no new tenant starts; tenants in flight
/// finish, each committed or rolled back. A second stop also cancels the statements in flight.
public final class FleetControl: @unchecked Sendable {
    private let lock = NSLock()
    private var stopRequests = 0
    private var cancelHandlers: [@Sendable () -> Void] = []

    public init() {}

    /// Asks the run to stop taking tenants; called twice, it also cancels the tenants in flight.
    public func stop() {
        lock.lock()
        stopRequests += 1
        let handlers = stopRequests >= 2 ? cancelHandlers : []
        lock.unlock()
        handlers.forEach { $0() }
    }

    public var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopRequests > 0
    }

    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        lock.lock()
        cancelHandlers.append(handler)
        lock.unlock()
    }
}
