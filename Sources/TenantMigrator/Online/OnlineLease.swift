import EntityModel
import LibPQ
import TypedSQL

/// The tenant held by one online run for its whole length, across its transactions: a lease,
/// the row `online run of <tenant>` in the catalog's `catalog_info`, naming the runner's session
/// (its server process and that process's start time, and its user).
///
/// Only the migrator can write the catalog, and a lease counts only while that very session lives
/// (``liveSQL(pid:started:user:)``: a process of that number, started at that time, as that user),
/// so no other role can take a tenant, keep one, or make a dead run look alive, as it could with
/// an advisory lock (any role may take any key). The lease is taken in a transaction that holds
/// the tenant's catalog row (``TenantCatalog/lockTenant(_:on:)``), and every migration of the
/// tenant, offline or online, looks for a live lease of another session right after it locks that
/// row, so two runners never migrate one tenant at once. The change capture's triggers test the
/// same condition to know whether the run is still alive.
struct OnlineLease {
    /// The runner's server process.
    let pid: Int32
    /// When that process started, in microseconds since the epoch (as ``startedSQL(_:)`` computes it).
    let started: Int64
    /// The OID of the process's session user.
    let user: Int64
    /// `catalog_info`'s key of the lease.
    let key: String
    /// The catalog it is in.
    let catalog: TenantCatalog
    /// The session's `lock_timeout` before the run set its own, given back at the end.
    let previousLockTimeout: String

    /// The key of `tenant`'s lease in `catalog_info`.
    static func key(of tenant: TenantName) -> String { "online run of " + tenant.rawValue }

    /// `backend_start` (a column of `pg_stat_get_activity`) as microseconds since the epoch.
    static func startedSQL(_ column: SQL) -> SQL {
        "(EXTRACT(epoch FROM \(column)) * 1000000)::pg_catalog.int8"
    }

    /// SQL true while the session `pid` (SQL int4), started at `started` (SQL int8) as user `user`
    /// (SQL int8), lives. A process whose start another role may not see (NULL) counts by its
    /// number and user alone.
    static func liveSQL(pid: SQL, started: SQL, user: SQL) -> SQL {
        """
        EXISTS (SELECT FROM pg_catalog.pg_stat_get_activity(\(pid)) AS a WHERE a.usesysid::pg_catalog.int8 = \(user) \
        AND (a.backend_start IS NULL OR \(startedSQL("a.backend_start")) = \(started)))
        """
    }

    /// SQL true when the lease `key` (an SQL text) is held by a live session other than this one.
    static func heldElsewhereSQL(key: SQL, catalog: TenantCatalog) -> SQL {
        let part = { (n: Int, type: SQL) -> SQL in "pg_catalog.split_part(lease.value, ' ', \(int: n))::pg_catalog.\(type)" }
        return """
        EXISTS (SELECT FROM \(catalog.table("catalog_info")) AS lease WHERE lease.key = \(key) \
        AND \(part(1, "int4")) <> pg_catalog.pg_backend_pid() AND \(liveSQL(pid: part(1, "int4"), started: part(2, "int8"), user: part(3, "int8"))))
        """
    }

    /// Takes the lease: retried with backoff when the tenant's row stays locked longer than
    /// `lock_timeout` (another runner has the tenant), up to the settings' attempts; when another
    /// live session holds the lease, after that run ends (``TenantRun/waitForOnlineRun(_:)``).
    static func acquire(run: TenantRun) throws -> OnlineLease {
        let connection = run.connection, catalog = run.catalog, key = key(of: run.tenant)
        let previous = try connection.execute("SELECT pg_catalog.current_setting('lock_timeout')" as SQL).first?.decode(String.self, at: 0) ?? "0"
        try connection.execute("SELECT pg_catalog.set_config('lock_timeout', \(bind: "\(TenantExecutor.wholeMilliseconds(run.settings.lockTimeout))ms"), false)")
        let take: SQL = """
            INSERT INTO \(catalog.table("catalog_info")) (key, value)
            SELECT $1, a.pid || ' ' || \(startedSQL("a.backend_start")) || ' ' || a.usesysid::pg_catalog.int8
            FROM pg_catalog.pg_stat_get_activity(pg_catalog.pg_backend_pid()) AS a
            WHERE NOT \(heldElsewhereSQL(key: "$1", catalog: catalog))
            ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
            RETURNING pg_catalog.split_part(value, ' ', 1)::pg_catalog.int4, pg_catalog.split_part(value, ' ', 2)::pg_catalog.int8,
                      pg_catalog.split_part(value, ' ', 3)::pg_catalog.int8
            """
        var attempt = 0, waits = 0
        while true {
            attempt += 1
            do {
                return try connection.transaction { connection in
                    // The row first, then (a statement of its own, which sees what the row's last holder committed) the lease.
                    _ = try run.executor.waitingForLocks(connection) { try connection.execute(catalog.lockStatement(run.tenant)) }
                    guard let row = try connection.execute(take, [key]).first else { throw TenantHeldOnline(tenant: run.tenant) }
                    return OnlineLease(
                        pid: try row.decode(Int32.self, at: 0), started: try row.decode(Int64.self, at: 1), user: try row.decode(Int64.self, at: 2),
                        key: key, catalog: catalog, previousLockTimeout: previous
                    )
                }
            } catch let error where error is TenantHeldOnline || run.isLockTimeoutOfAnOnlineRun(error) {
                do {
                    try run.waitForOnlineRun(&waits)
                } catch {
                    _ = try? connection.execute("SELECT pg_catalog.set_config('lock_timeout', \(bind: previous), false)")
                    throw error
                }
                attempt -= 1
            } catch where SQLState.lockNotAvailable ~= error && attempt < run.settings.maxAttempts {
                try TenantExecutor.sleep(run.executor.backoff(afterAttempt: attempt))
            } catch {
                _ = try? connection.execute("SELECT pg_catalog.set_config('lock_timeout', \(bind: previous), false)")
                throw error
            }
        }
    }

    /// The lease's value in `catalog_info`: the session's process, start and user.
    var value: String { "\(pid) \(started) \(user)" }

    /// SQL true while this run holds the tenant (for the change capture's triggers, which run as the
    /// migrator): its lease is in the catalog (it goes when the run ends, however it ends, if the
    /// session lives on) and its session lives (after a crash the lease stays, but the session is gone).
    /// The catalog's schema is named in it (the triggers run in the tenant's tables, for any schema).
    var heldSQL: SQL {
        let held: SQL = """
        (EXISTS (SELECT FROM \(catalog.table("catalog_info")) AS lease WHERE lease.key = \(literal: key) \
        AND lease.value = \(literal: value)) AND \(Self.liveSQL(pid: "\(int: pid)", started: "\(int: started)", user: "\(int: user)")))
        """
        return held.naming(schema: catalog.schema)
    }

    /// Gives the lease back and puts the session's `lock_timeout` back (nothing to do on a lost
    /// connection: the lease died with the session).
    func release(catalog: TenantCatalog, on connection: Connection) {
        guard connection.isHealthy, !connection.isInTransaction else { return }
        _ = try? connection.execute("DELETE FROM \(catalog.table("catalog_info")) WHERE key = \(bind: key) AND value = \(bind: value)")
        _ = try? connection.execute("SELECT pg_catalog.set_config('lock_timeout', \(bind: previousLockTimeout), false)")
    }
}
