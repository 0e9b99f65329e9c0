import LibPQ
import Logging

/// Where a fleet run (``FleetExecutor``, ``TenantLifecycle/createMany(_:version:access:jobs:connectionString:logger:control:progress:)``)
/// takes its connections and gives them back: a facade's pool, or sessions opened for the run and
/// closed after it.
struct ConnectionSource: Sendable {
    /// A connection, retrying an unreachable server for the given time (zero tries once).
    let take: @Sendable (_ reconnectTimeout: Duration) async throws -> AsyncConnection
    /// A connection for one more worker, or nil when the source has none to spare right now.
    let takeExtra: @Sendable () async throws -> AsyncConnection?
    /// Gives back a connection `take` or `takeExtra` returned; one that is not `reusable` (a cancel
    /// request may have been sent for it) is closed.
    let giveBack: @Sendable (_ connection: AsyncConnection, _ reusable: Bool) async -> Void
    let logger: Logger

    /// Sessions opened for the run from `session` and closed when given back.
    static func dedicated(_ session: MigratorSession) -> ConnectionSource {
        ConnectionSource(
            take: { try await session.reconnecting(for: $0).connect() },
            takeExtra: { try await session.reconnecting(for: .zero).connect() },
            giveBack: { connection, _ in await connection.close() },
            logger: session.logger
        )
    }

    /// For a run of `jobs` connections: the pool's own connections when `jobs` fits in it (extra
    /// workers take only what is free, they do not queue); otherwise a separate set of sessions
    /// opened through the pool's session for the run, and closed after it.
    static func pooled(_ pool: ConnectionPool, jobs: Int) -> ConnectionSource {
        guard jobs <= pool.configuration.maximumConnections else {
            return ConnectionSource(
                take: { try await pool.openDedicated(reconnectTimeout: $0) },
                takeExtra: { try await pool.openDedicated() },
                giveBack: { connection, _ in await pool.closeDedicated(connection) },
                logger: pool.logger
            )
        }
        return ConnectionSource(
            take: { try await pool.checkout(reconnectTimeout: $0) },
            takeExtra: { try await pool.checkoutIfAvailable() },
            giveBack: { connection, reusable in
                let healthy = reusable && !Task.isCancelled ? (try? await connection.withConnection { $0.isReusable }) ?? false : false
                await pool.checkin(connection, reusable: healthy)
            },
            logger: pool.logger
        )
    }
}
