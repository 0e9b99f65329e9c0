import LibPQ

extension ConnectionPool {
    /// Takes the connections idle for longer than the idle timeout out of the pool; the caller
    /// closes them. Call with `lock` held.
    func removeExpired() -> [AsyncConnection] {
        let cutoff = ContinuousClock.now - configuration.idleTimeout
        // `idle` is in the order connections came back: the expired ones come first.
        let count = idle.prefix { $0.since <= cutoff }.count
        guard count > 0 else { return [] }
        let expired = idle.prefix(count).map(\.connection)
        idle.removeFirst(count)
        openCount -= count
        counters.closed += count
        return expired
    }

    /// Starts the light timer that closes expired idle connections while there are any (checkouts
    /// also close them as they go). It holds the pool weakly: a pool nobody uses goes away.
    func startSweeping() {
        let start = lock.withLock {
            guard !isSweeping else { return false }
            isSweeping = true
            return true
        }
        guard start else { return }
        let interval = max(configuration.idleTimeout / 2, .milliseconds(10))
        Task { [weak self] in
            while true {
                try? await Task.sleep(for: interval)
                guard let self else { return }
                let (expired, goOn) = self.lock.withLock {
                    let expired = self.removeExpired()
                    self.isSweeping = !self.idle.isEmpty && !self.isShutDown
                    return (expired, self.isSweeping)
                }
                for connection in expired { await connection.close() }
                if !goOn { return }
            }
        }
    }
}
