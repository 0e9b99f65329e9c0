import LibPQ

extension CurrentTenantCache {
    /// How long the listener waits for notifications before it looks whether it is still wanted.
    static let listenInterval = Duration.milliseconds(500)
    /// How long after a failure the listener is not tried again (calls query the catalog meanwhile).
    static let retryDelay = Duration.seconds(1)

    /// Starts the listener when it is not up, and waits until it listens (or failed: then calls go
    /// on without the cache). Costs nothing when it is up; a failed listener is retried after
    /// ``retryDelay``.
    func startListening() async {
        let task: Task<Void, Never>? = lock.withLock {
            switch listener {
            case .listening, .shutDown:
                return nil
            case .starting(let task):
                return task
            case .failed(let retryAfter) where ContinuousClock.now < retryAfter:
                return nil
            case .stopped, .failed:
                let task = Task { await self.connectListener() }
                listener = .starting(task)
                return task
            }
        }
        await task?.value
    }

    /// Stops listening and empties the cache for good.
    func shutdown() async {
        let connection: AsyncConnection? = lock.withLock {
            defer {
                listener = .shutDown
                current.removeAll()
                generation += 1
            }
            if case .listening(let connection) = listener { return connection }
            return nil
        }
        if let connection { await pool.closeHoldingSlot(connection) }
    }

    /// Opens the listening connection (in one of the pool's slots) and starts the loop that reads it.
    private func connectListener() async {
        do {
            let connection = try await pool.openHoldingSlot()
            let channel = catalog.notificationChannel
            do {
                try await connection.withConnection { try $0.listen(channel) }
            } catch {
                await pool.closeHoldingSlot(connection)
                throw error
            }
            let wanted = lock.withLock {
                guard case .starting = listener else { return false }
                listener = .listening(connection)
                current.removeAll()
                generation += 1
                return true
            }
            guard wanted else { return await pool.closeHoldingSlot(connection) }
            let owner = WeakReference(self)
            Task { await Self.readNotifications(on: connection, for: owner) }
        } catch {
            pool.logger.warning("cannot listen for catalog changes (\(error)); migrateIfNeeded queries the catalog on every call for now")
            lock.withLock {
                if case .starting = listener { listener = .failed(retryAfter: .now + Self.retryDelay) }
            }
        }
    }

    /// Forgets every tenant announced on the listener's connection, until the connection is lost
    /// or the cache is shut down or released. It holds the cache only while it handles a batch.
    private static func readNotifications(on connection: AsyncConnection, for owner: WeakReference<CurrentTenantCache>) async {
        while true {
            let received: Result<[PQNotification], any Error>
            do {
                received = .success(try await connection.withConnection { try $0.waitForNotifications(timeout: Self.listenInterval) })
            } catch {
                received = .failure(error)
            }
            guard let cache = owner.value else {
                await connection.close()
                return
            }
            switch received {
            case .success(let notifications):
                if !notifications.isEmpty { cache.forget(notifications.map(\.payload)) }
            case .failure(let error):
                await cache.listenerLost(connection, error: error)
                return
            }
        }
    }

    /// The listener's connection failed: forget everything, and let a later call start a new one.
    private func listenerLost(_ connection: AsyncConnection, error: any Error) async {
        let wasListening = lock.withLock {
            current.removeAll()
            generation += 1
            guard case .listening(let active) = listener, active === connection else { return false }
            listener = .failed(retryAfter: .now + Self.retryDelay)
            return true
        }
        if wasListening {
            pool.logger.warning("lost the connection that listens for catalog changes (\(error)); the cache of current tenants is cleared")
            await pool.closeHoldingSlot(connection)
        }
    }
}

/// A reference that does not keep its object alive.
final class WeakReference<Object: AnyObject & Sendable>: @unchecked Sendable {
    /// Set once, at initialization.
    private(set) weak var value: Object?
    init(_ value: Object) { self.value = value }
}
