import LibPQ

/// Stops a fleet run from outside (Ctrl-C, SIGTERM): no new tenant starts; tenants in flight
/// finish, each committed or rolled back. A second stop also cancels the statements in flight.
/// Tenants still waiting for their locks have done nothing yet, so the first stop already cancels
/// them (they are reported as not started).
///
/// `--fail-fast` stops the run too, but that stop never counts towards cancelling: tenants in
/// flight when a tenant fails always finish, however many fail at once.
public final class FleetControl: Sendable {
    private struct State {
        var stopRequests = 0
        /// Stops numbered by ``stop(announcing:)`` before they take effect.
        var stopsAnnounced = 0
        var haltedByFailure = false
        var cancelHandlers: [@Sendable () -> Void] = []
        var lockWaiters: [Int: @Sendable () -> Void] = [:]
        var nextWaiter = 0
    }

    private let state = Locked(State())

    public init() {}

    /// Asks the run to stop taking tenants; called twice, it also cancels the tenants in flight.
    ///
    /// - Returns: true when this call cancelled the tenants in flight (it was the second or later).
    @discardableResult
    public func stop() -> Bool {
        stop(announcing: { _ in })
    }

    /// Asks the run to stop, as ``stop()`` does, after `announce` has said which stop this is.
    ///
    /// `announce` runs before the stop takes effect, so what it writes (the CLI's "interrupted: no
    /// new tenants start") is out before the run can end because of it: a run stopped between
    /// tenants ends at once, and a message written after the stop could be lost with the process.
    ///
    /// - Parameter announce: called with true when this stop will cancel the tenants in flight
    ///   (the second or a later one), false for the first.
    /// - Returns: true when this call cancelled the tenants in flight.
    @discardableResult
    public func stop(announcing announce: (_ cancelling: Bool) -> Void) -> Bool {
        // Numbered first, so that two stops at once (SIGINT and SIGTERM) announce what each does.
        let cancelling = state.withLock { state in
            state.stopsAnnounced += 1
            return state.stopsAnnounced >= 2
        }
        announce(cancelling)
        // Which stop cancels is decided again as they take effect: of two at once, the one applied
        // second cancels, whichever was announced as such.
        let (cancelled, handlers) = state.withLock { state in
            state.stopRequests += 1
            let cancelled = state.stopRequests >= 2
            return (cancelled, (cancelled ? state.cancelHandlers : []) + Array(state.lockWaiters.values))
        }
        handlers.forEach { $0() }
        return cancelled
    }

    /// Whether the run takes no new tenants: stopped from outside, or by a failure under fail-fast.
    public var isStopped: Bool {
        state.withLock { $0.stopRequests > 0 || $0.haltedByFailure }
    }

    /// Stops taking tenants after a failure (fail-fast), without counting as a ``stop()``.
    func haltAfterFailure() {
        state.withLock { $0.haltedByFailure = true }
    }

    /// Runs `body` (a tenant taking its locks, before it changes anything) so that a ``stop()``
    /// meanwhile calls `cancel`, ending the wait. Throws `CancellationError` at once if the run is
    /// already stopped.
    public func whileWaitingForLocks<T>(cancel: @escaping @Sendable () -> Void, _ body: () throws -> T) throws -> T {
        let id = try state.withLock { state in
            guard state.stopRequests == 0 else { throw CancellationError() }
            let id = state.nextWaiter
            state.nextWaiter += 1
            state.lockWaiters[id] = cancel
            return id
        }
        defer { state.withLock { $0.lockWaiters[id] = nil } }
        return try body()
    }

    /// Whether ``stop()`` was called (not counting fail-fast halts).
    var isStopRequested: Bool {
        state.withLock { $0.stopRequests > 0 }
    }

    /// Whether ``stop()`` was called twice: the tenants in flight are cancelled.
    var isCancelRequested: Bool {
        state.withLock { $0.stopRequests >= 2 }
    }

    /// Runs `handler` on the second ``stop()``, or at once if that already happened.
    func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let cancelled = state.withLock { state in
            let cancelled = state.stopRequests >= 2
            if !cancelled { state.cancelHandlers.append(handler) }
            return cancelled
        }
        if cancelled { handler() }
    }
}
