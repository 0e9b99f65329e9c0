import EntityModel
import LibPQ

/// How a migration takes its locks without stalling the application for long.
///
/// `lock_timeout` is set first, so every wait below (the tenant's catalog row, the tables) is bounded by it. Then, before the first DDL, the migration takes ACCESS EXCLUSIVE
/// on every table of the tenant's current model in one fixed order (by name), all at once with
/// `NOWAIT`. When one is busy, it releases everything and waits for that one table alone, inside a
/// savepoint that is rolled back afterwards, so it never waits for one lock while holding another
/// that the application needs. The application therefore never queues behind the migration for
/// longer than `lock_timeout` on any table.
extension TenantExecutor {
    /// `SET LOCAL lock_timeout`, through `pg_catalog.set_config`.
    ///
    /// On Citus, the locks that matter are taken on the workers, which do not see a local setting
    /// unless told to: there it is `SET LOCAL citus.propagate_set_commands = 'local'`, then a
    /// `SET LOCAL lock_timeout` statement (Citus propagates SET statements, not `set_config`), both
    /// in one round trip.
    static func setLockTimeout(_ timeout: Duration, on connection: Connection) throws {
        try connection.pipeline(lockTimeoutStatements(timeout, on: connection))
    }

    /// The statements of ``setLockTimeout(_:on:)``, to send in a pipeline.
    static func lockTimeoutStatements(_ timeout: Duration, on connection: Connection) throws -> [Statement] {
        let value = lockTimeoutValue(timeout)
        if try connection.capabilities.propagatesOnlySetStatements {
            return [
                Statement("SET LOCAL citus.propagate_set_commands = 'local'"),
                Statement("SET LOCAL lock_timeout = \(literal: value)"),
            ]
        }
        return [Statement("SELECT pg_catalog.set_config('lock_timeout', $1, true)", [value])]
    }

    /// The statements that set `lock_timeout` and then take `tenant`'s lock in `catalog` (its row),
    /// to send in a pipeline: one statement, or on Citus ``lockTimeoutStatements(_:on:)``'s then the lock.
    static func lockTimeoutAndTenantLock(_ timeout: Duration, tenant: TenantName, catalog: TenantCatalog, on connection: Connection) throws -> [Statement] {
        guard try connection.capabilities.propagatesOnlySetStatements else { return [catalog.lockStatement(tenant, settingLockTimeout: lockTimeoutValue(timeout))] }
        return try lockTimeoutStatements(timeout, on: connection) + [catalog.lockStatement(tenant)]
    }

    /// `lock_timeout`'s value for `timeout`.
    private static func lockTimeoutValue(_ timeout: Duration) -> String { "\(TenantExecutor.wholeMilliseconds(timeout))ms" }

    /// `LOCK TABLE` of `tables` (qualified and quoted) in ACCESS EXCLUSIVE mode, `NOWAIT` unless `wait`.
    static func lockStatement(_ tables: [SQL], wait: Bool) -> SQL {
        "LOCK TABLE \(tables, joinedBy: ", ") IN ACCESS EXCLUSIVE MODE\(wait ? "" : " NOWAIT" as SQL)"
    }

    /// Rounds of "all at once, else wait for the busy one alone" before giving up with 55P03 (the
    /// attempt is then retried with backoff, holding nothing).
    static let lockRounds = 4

    /// Takes ACCESS EXCLUSIVE on `tables` (already qualified and quoted), in the given order, without
    /// ever waiting on one while holding another. With `then`, runs that statement in the same
    /// round trip as the lock that succeeded, and returns what it read (what must be read only once
    /// the tables are locked, at no round trip of its own).
    @discardableResult
    static func lockTables(_ tables: [SQL], then statement: Statement? = nil, on connection: Connection) throws -> QueryResult? {
        guard !tables.isEmpty else { return try statement.map { try connection.execute($0) } }
        for _ in 0..<lockRounds {
            do {
                return try connection.savepoint { connection in
                    try connection.pipeline([Statement(lockStatement(tables, wait: false))] + (statement.map { [$0] } ?? [])).dropFirst().first
                }
            } catch SQLState.lockNotAvailable {
                // Some table is busy. Wait for each one in turn, alone, and let go of it again.
                for table in tables {
                    do {
                        try connection.savepoint { connection in
                            try connection.execute(lockStatement([table], wait: true))
                            throw ReleaseLock()
                        }
                    } catch is ReleaseLock {}
                }
            }
        }
        throw PQError(
            kind: .server,
            message: "the tenant's tables stayed busy through \(lockRounds) rounds of waiting for them one by one",
            sqlState: .lockNotAvailable
        )
    }

    /// The tables of `version` in `schema`, qualified, quoted and sorted by name: the fixed order in
    /// which every migration locks them.
    static func tablesToLock(of version: ModelVersion, inSchema schema: String) -> [SQL] {
        version.relationalSchema().tables.map(\.name).sorted().map { "\(schema: schema, table: $0)" }
    }
}

/// Thrown to roll a savepoint back on purpose (releasing the lock taken in it).
private struct ReleaseLock: Error {}
