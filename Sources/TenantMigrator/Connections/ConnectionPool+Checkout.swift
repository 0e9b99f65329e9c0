import LibPQ

extension ConnectionPool {
    /// What a waiting task is given: a connection someone gave back, or room to open one.
    enum Grant: Sendable {
        case connection(AsyncConnection)
        case slot
    }

    /// Takes a healthy connection: an idle one, a new one while fewer than the maximum are open, or
    /// the next one given back (waiting in line). New sessions retry an unreachable server for
    /// `reconnectTimeout`. Give it back with ``checkin(_:reusable:)``.
    func checkout(reconnectTimeout: Duration = .zero) async throws -> AsyncConnection {
        while true {
            let grant: Grant
            if let immediate = try takeImmediately() { grant = immediate } else { grant = try await waitInLine() }
            switch grant {
            case .slot:
                return try await openInSlot(reconnectTimeout: reconnectTimeout)
            case .connection(let connection):
                if (try? await connection.withConnection({ $0.isReusable })) == true { return connection }
                await discard(connection)
            }
        }
    }

    /// Like ``checkout(reconnectTimeout:)``, but nil instead of waiting when every connection is in
    /// use (a fleet run's extra workers go on with fewer connections rather than queue).
    func checkoutIfAvailable() async throws -> AsyncConnection? {
        while let grant = try takeImmediately() {
            switch grant {
            case .slot:
                return try await openInSlot(reconnectTimeout: .zero)
            case .connection(let connection):
                if (try? await connection.withConnection({ $0.isReusable })) == true { return connection }
                await discard(connection)
            }
        }
        return nil
    }

    /// Gives back a connection from ``checkout(reconnectTimeout:)``: to the next waiting task or to
    /// the idle connections when `reusable`, closed otherwise.
    func checkin(_ connection: AsyncConnection, reusable: Bool) async {
        let keep = reusable && configuration.idleTimeout > .zero
        let handedOver: Bool = lock.withLock {
            guard reusable, !isShutDown else { return false }
            if !waiters.isEmpty {
                waiters.removeFirst().continuation.resume(returning: .connection(connection))
                return true
            }
            guard keep else { return false }
            idle.append((connection, .now))
            return true
        }
        if handedOver {
            if keep { startSweeping() }
            return
        }
        await discard(connection)
    }

    /// Closes a connection that held a slot; the slot goes to the next waiting task, if any.
    func discard(_ connection: AsyncConnection) async {
        lock.withLock {
            counters.closed += 1
            if !isShutDown, !waiters.isEmpty {
                waiters.removeFirst().continuation.resume(returning: .slot)
            } else {
                openCount -= 1
            }
        }
        await connection.close()
    }

    /// An idle connection or a free slot now, or nil when every connection is in use.
    private func takeImmediately() throws -> Grant? {
        let (grant, expired): (Grant?, [AsyncConnection]) = try lock.withLock {
            guard !isShutDown else { throw CancellationError() }
            let expired = removeExpired()
            if let last = idle.popLast() { return (.connection(last.connection), expired) }
            if openCount < configuration.maximumConnections {
                openCount += 1
                return (.slot, expired)
            }
            return (nil, expired)
        }
        if !expired.isEmpty { Task { for connection in expired { await connection.close() } } }
        return grant
    }

    /// Waits, first come first served, for a connection or a slot. Cancelling the task ends the wait.
    private func waitInLine() async throws -> Grant {
        let id = lock.withLock {
            nextWaiterID += 1
            return nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Grant, any Error>) in
                let ready: Grant?? = lock.withLock {
                    if Task.isCancelled || isShutDown { return .some(nil) }
                    // Something may have come back between the first look and now.
                    if let last = idle.popLast() { return .some(.connection(last.connection)) }
                    if openCount < configuration.maximumConnections {
                        openCount += 1
                        return .some(.slot)
                    }
                    waiters.append((id, continuation))
                    return .none
                }
                switch ready {
                case .none: break
                case .some(nil): continuation.resume(throwing: CancellationError())
                case .some(let grant?): continuation.resume(returning: grant)
                }
            }
        } onCancel: {
            let waiter = lock.withLock { () -> CheckedContinuation<Grant, any Error>? in
                guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Opens a session that keeps one of the pool's slots for as long as it is open (the current
    /// tenants cache's listener), so the pool never has more than
    /// ``Configuration/maximumConnections`` sessions in all. It takes a free slot, or closes an idle
    /// connection for its slot; it is refused, without waiting, in a pool of one or when every
    /// connection is in use. Close it with
    /// ``closeHoldingSlot(_:)``.
    func openHoldingSlot() async throws -> AsyncConnection {
        // A free slot, or the slot of an idle connection, which is closed to make room.
        let displaced: AsyncConnection? = try lock.withLock {
            guard !isShutDown else { throw CancellationError() }
            guard configuration.maximumConnections >= 2 else { throw NoFreeSlot() }
            if openCount < configuration.maximumConnections {
                openCount += 1
                return nil
            }
            guard let last = idle.popLast() else { throw NoFreeSlot() }
            counters.closed += 1
            return last.connection
        }
        if let displaced { await displaced.close() }
        return try await openInSlot(reconnectTimeout: .zero)
    }

    /// Closes a connection from ``openHoldingSlot()``; its slot goes to the next waiting task.
    func closeHoldingSlot(_ connection: AsyncConnection) async {
        await discard(connection)
    }

    /// Opens a session in a slot already counted; on failure the slot is freed.
    private func openInSlot(reconnectTimeout: Duration) async throws -> AsyncConnection {
        do {
            let connection = try await session.reconnecting(for: reconnectTimeout).connect()
            lock.withLock { counters.opened += 1 }
            return connection
        } catch {
            lock.withLock {
                if !isShutDown, !waiters.isEmpty {
                    waiters.removeFirst().continuation.resume(returning: .slot)
                } else {
                    openCount -= 1
                }
            }
            throw error
        }
    }
}

/// The pool could not spare a slot for a session that keeps it (see ``ConnectionPool/openHoldingSlot()``).
struct NoFreeSlot: Error, CustomStringConvertible {
    var description: String { "every connection of the pool is in use, or the pool has only one" }
}
