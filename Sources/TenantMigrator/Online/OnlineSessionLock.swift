import LibPQ

/// The tenant's advisory lock held by the runner's session for the whole online run, under the
/// session's `lock_timeout`.
///
/// The key is the one offline migrations take for their transaction (``TenantCatalog/lockTenant(_:on:)``),
/// so the two never run at once on one tenant; the same session may still take the
/// transaction-level lock (an online run that runs offline after all). The change capture's
/// triggers test it to know whether the run is still alive.
struct OnlineSessionLock {
    let key: (Int32, Int32)
    /// The session's `lock_timeout` before the run set its own, given back at the end.
    let previousLockTimeout: String

    /// Takes the lock, retried with backoff when it waits longer than `lock_timeout` (another
    /// runner has the tenant), up to the settings' attempts.
    static func acquire(key: (Int32, Int32), run: TenantRun) throws -> OnlineSessionLock {
        let connection = run.connection
        let previous = try connection.execute("SELECT pg_catalog.current_setting('lock_timeout')").first?.decode(String.self, at: 0) ?? "0"
        try connection.execute("SELECT pg_catalog.set_config('lock_timeout', $1, false)",
                               ["\(TenantMigrationRunner.wholeMilliseconds(run.settings.lockTimeout))ms"])
        var attempt = 0
        while true {
            attempt += 1
            do {
                try run.runner.waitingForLocks(connection) {
                    _ = try connection.execute("SELECT pg_catalog.pg_advisory_lock($1::pg_catalog.int4, $2::pg_catalog.int4)", [key.0, key.1])
                }
                return OnlineSessionLock(key: key, previousLockTimeout: previous)
            } catch where SQLState.lockNotAvailable ~= error && attempt < run.settings.maxAttempts {
                try TenantMigrationRunner.sleep(run.runner.backoff(afterAttempt: attempt))
            } catch {
                _ = try? connection.execute("SELECT pg_catalog.set_config('lock_timeout', $1, false)", [previous])
                throw error
            }
        }
    }

    /// Lets the lock go and puts the session's `lock_timeout` back (nothing to do on a lost connection).
    func release(on connection: Connection) {
        guard connection.isHealthy, !connection.isInTransaction else { return }
        _ = try? connection.execute("SELECT pg_catalog.pg_advisory_unlock($1::pg_catalog.int4, $2::pg_catalog.int4)", [key.0, key.1])
        _ = try? connection.execute("SELECT pg_catalog.set_config('lock_timeout', $1, false)", [previousLockTimeout])
    }
}
