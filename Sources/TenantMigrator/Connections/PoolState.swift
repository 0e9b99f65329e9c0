/// What a task asking the pool is given: a connection someone gave back, or a slot (room to open a
/// new connection, counted against ``ConnectionPool/Configuration/maximumConnections``).
enum PoolGrant<Connection: Sendable>: Sendable {
    case connection(Connection)
    case slot
}

/// The bookkeeping of a ``ConnectionPool``, as a value: which connections are idle and since when,
/// how many slots are taken, who waits in line, and what the pool has done so far.
///
/// Each mutating method makes one decision and returns what the pool must then do (resume a waiter,
/// close connections, start the idle sweeper). The pool calls these methods under its lock and
/// acts on the result after releasing it, so nothing slow or reentrant ever runs under the lock.
/// Being a value with the clock passed in, the state is tested without a server or a sleep.
///
/// Generic over the connection (``AsyncConnection`` in the pool) and over what a waiter is (a
/// continuation in the pool).
struct PoolState<Connection: Sendable, Waiter: Sendable>: Sendable {
    typealias Grant = PoolGrant<Connection>

    /// What becomes of a connection given back.
    enum Checkin {
        /// It goes to the first task waiting in line.
        case handOver(to: Waiter)
        /// It waits in the pool; start the idle sweeper when `startSweeping`.
        case keepIdle(startSweeping: Bool)
        /// Close it; its slot went to `slotFor` (a waiting task, which opens a connection of its own).
        case close(slotFor: Waiter?)
    }

    let maximumConnections: Int
    let idleTimeout: Duration

    /// Connections waiting in the pool, in the order they came back.
    private var idle: [(connection: Connection, since: ContinuousClock.Instant)] = []
    /// Slots taken: connections open (in use or idle) or being opened.
    private var openCount = 0
    private var waiters: [(id: UInt64, waiter: Waiter)] = []
    private var lastWaiterID: UInt64 = 0
    private var counters = ConnectionPool.Statistics()
    private(set) var isShutDown = false
    private var isSweeping = false

    init(maximumConnections: Int, idleTimeout: Duration) {
        self.maximumConnections = max(1, maximumConnections)
        self.idleTimeout = max(.zero, idleTimeout)
    }

    /// What the pool has done so far, and what it holds now.
    var statistics: ConnectionPool.Statistics {
        var statistics = counters
        statistics.idle = idle.count
        statistics.inUse = openCount - idle.count
        statistics.waiting = waiters.count
        return statistics
    }

    // MARK: Taking

    /// The most recently returned idle connection, or a free slot, or nil when every slot is taken.
    /// Also takes out the connections idle for longer than the idle timeout at `now`, for the
    /// caller to close.
    ///
    /// - Throws: `CancellationError` once the pool is shut down.
    mutating func take(at now: ContinuousClock.Instant) throws -> (grant: Grant?, expired: [Connection]) {
        guard !isShutDown else { throw CancellationError() }
        let expired = removeExpired(at: now)
        return (takeIdleOrSlot(), expired)
    }

    /// A number for a task about to wait, to ``removeWaiter(_:)`` it when it gives up.
    mutating func nextWaiterID() -> UInt64 {
        lastWaiterID += 1
        return lastWaiterID
    }

    /// Something for `waiter` at once (something may have come back since its first look), or nil
    /// when it now waits in line, first come first served.
    ///
    /// - Throws: `CancellationError` once the pool is shut down.
    mutating func wait(_ waiter: Waiter, id: UInt64) throws -> Grant? {
        guard !isShutDown else { throw CancellationError() }
        if let grant = takeIdleOrSlot() { return grant }
        waiters.append((id, waiter))
        return nil
    }

    /// Takes a task that gave up out of the line; nil when it was already served.
    mutating func removeWaiter(_ id: UInt64) -> Waiter? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return waiters.remove(at: index).waiter
    }

    /// A slot for a session that keeps it while it is open (the current tenants cache's listener):
    /// a free slot, or the slot of the most recently returned idle connection, which is returned
    /// for the caller to close. Never waits.
    ///
    /// - Throws: ``NoFreeSlot`` in a pool of one or when every connection is in use;
    ///   `CancellationError` once the pool is shut down.
    mutating func takeSlotToHold() throws -> Connection? {
        guard !isShutDown else { throw CancellationError() }
        guard maximumConnections >= 2 else { throw NoFreeSlot() }
        if openCount < maximumConnections {
            openCount += 1
            return nil
        }
        guard let last = idle.popLast() else { throw NoFreeSlot() }
        counters.closed += 1
        return last.connection
    }

    // MARK: Giving back

    /// A connection comes back at `now`; `reusable` when it is healthy and idle and its task was not
    /// cancelled. It goes to the first waiting task, waits in the pool, or is closed (when not
    /// reusable, when the pool keeps no idle connections or is shut down).
    mutating func checkin(_ connection: Connection, reusable: Bool, at now: ContinuousClock.Instant) -> Checkin {
        guard reusable, !isShutDown else { return .close(slotFor: closed()) }
        if !waiters.isEmpty { return .handOver(to: waiters.removeFirst().waiter) }
        guard idleTimeout > .zero else { return .close(slotFor: closed()) }
        idle.append((connection, now))
        defer { isSweeping = true }
        return .keepIdle(startSweeping: !isSweeping)
    }

    /// A connection that held a slot is being closed: its slot goes to the returned waiting task,
    /// or is freed.
    mutating func closed() -> Waiter? {
        counters.closed += 1
        return releaseSlot()
    }

    /// Opening a connection in a slot failed: the slot goes to the returned waiting task, or is freed.
    mutating func openFailed() -> Waiter? {
        releaseSlot()
    }

    /// Counts a session opened (in a slot, or dedicated, outside the bound).
    mutating func countOpened() {
        counters.opened += 1
    }

    /// Counts a dedicated session closed.
    mutating func countDedicatedClosed() {
        counters.closed += 1
    }

    // MARK: Idle timeout and shutdown

    /// One tick of the idle sweeper at `now`: the expired connections, for the caller to close, and
    /// whether the sweeper goes on (while any connection is idle and the pool is not shut down).
    mutating func sweep(at now: ContinuousClock.Instant) -> (expired: [Connection], goOn: Bool) {
        let expired = removeExpired(at: now)
        isSweeping = !idle.isEmpty && !isShutDown
        return (expired, isSweeping)
    }

    /// Refuses every later request. Returns the idle connections, for the caller to close, and the
    /// waiting tasks, to be told the pool is gone. Connections in use are closed when they come back.
    mutating func shutDown() -> (closing: [Connection], waiting: [Waiter]) {
        isShutDown = true
        let closing = idle.map(\.connection)
        counters.closed += closing.count
        openCount -= closing.count
        idle = []
        defer { waiters = [] }
        return (closing, waiters.map(\.waiter))
    }

    // MARK: Private

    private mutating func takeIdleOrSlot() -> Grant? {
        if let last = idle.popLast() { return .connection(last.connection) }
        guard openCount < maximumConnections else { return nil }
        openCount += 1
        return .slot
    }

    private mutating func releaseSlot() -> Waiter? {
        if !isShutDown, !waiters.isEmpty { return waiters.removeFirst().waiter }
        openCount -= 1
        return nil
    }

    /// Takes the connections idle since the idle timeout before `now` out of the pool.
    private mutating func removeExpired(at now: ContinuousClock.Instant) -> [Connection] {
        let cutoff = now - idleTimeout
        // `idle` is in the order connections came back: the expired ones come first.
        let count = idle.prefix { $0.since <= cutoff }.count
        guard count > 0 else { return [] }
        let expired = idle.prefix(count).map(\.connection)
        idle.removeFirst(count)
        openCount -= count
        counters.closed += count
        return expired
    }
}

extension PoolGrant: Equatable where Connection: Equatable {}
extension PoolState.Checkin: Equatable where Waiter: Equatable {}

/// The pool could not spare a slot for a session that keeps it (see ``ConnectionPool/openHoldingSlot()``).
struct NoFreeSlot: Error, CustomStringConvertible {
    var description: String { "every connection of the pool is in use, or the pool has only one" }
}
