import EntityModel
import Foundation
import LibPQ
import TypedSQL

extension TenantCatalog {
    /// Every tenant, by name; optionally only those of `family`.
    public func tenants(family: String? = nil, on connection: Connection) throws -> [TenantRecord] {
        try records(on: connection) { columns in
            try connection.execute(
                "SELECT \(columns) FROM \(table("tenants")) WHERE $1::text IS NULL OR family = $1 ORDER BY name",
                [family]
            )
        }
    }

    /// The tenant named `name`, or nil.
    public func tenant(_ name: TenantName, on connection: Connection, forUpdate: Bool = false) throws -> TenantRecord? {
        try records(on: connection) { columns in
            try connection.execute(
                "SELECT \(columns) FROM \(table("tenants")) WHERE name = $1\(forUpdate ? " FOR UPDATE" : "" as SQL)",
                [name.rawValue]
            )
        }.first
    }

    /// The records `query` reads with the columns it is given. A catalog of version 1 (before pins),
    /// which read-only calls and trial runs never upgrade, is read again without the pin columns:
    /// its tenants are unpinned. Inside a transaction the first try runs in a savepoint, so that its
    /// failure does not abort the transaction (a trial run, or a drop, on a catalog not upgraded yet).
    private func records(on connection: Connection, _ query: (SQL) throws -> QueryResult) throws -> [TenantRecord] {
        do {
            let rows = try connection.isInTransaction
                ? connection.savepoint { _ in try query(TenantRecord.columns) }
                : query(TenantRecord.columns)
            return try rows.map(TenantRecord.init(row:))
        } catch SQLState.undefinedColumn {
            return try query(TenantRecord.columnsOfUnpinnedCatalog).map(TenantRecord.init(row:))
        }
    }

    /// The tenant named `name`, or ``TenantMigratorError/unknownTenant(_:)``.
    public func requireTenant(_ name: TenantName, on connection: Connection, forUpdate: Bool = false) throws -> TenantRecord {
        guard let record = try tenant(name, on: connection, forUpdate: forUpdate) else { throw TenantMigratorError.unknownTenant(name) }
        return record
    }

    /// Takes the tenant's lock until the end of the current transaction if no other session holds
    /// it (a migration, online or not); returns whether it did.
    public func tryLockTenant(_ name: TenantName, on connection: Connection) throws -> Bool {
        let locked = try connection.execute(
            "SELECT 1 FROM \(table("tenants")) WHERE name = $1 FOR UPDATE SKIP LOCKED", [name.rawValue]
        ).first != nil
        return try locked && !isHeldByOnlineRun(name, on: connection)
    }

    /// Takes the tenant's lock until the end of the current transaction: its row in the catalog,
    /// `FOR UPDATE` (waiting under the transaction's `lock_timeout`), and then makes sure no live
    /// online run of another session holds the tenant (``OnlineLease``).
    ///
    /// Only the migrator can lock a row of the catalog, so no other role can hold a tenant (an
    /// advisory lock, which any role may take with a key anyone can compute, could). Runners on
    /// different tenants never wait for each other, and two runners on the same tenant serialize.
    ///
    /// - Throws: a ``PQError`` with SQLSTATE 55P03 when another runner holds the tenant.
    public func lockTenant(_ name: TenantName, on connection: Connection) throws {
        try connection.execute(lockStatement(name))
        if try isHeldByOnlineRun(name, on: connection) { throw Self.heldByOnlineRun(name) }
    }

    /// Whether a live online run of another session holds tenant `name`.
    func isHeldByOnlineRun(_ name: TenantName, on connection: Connection) throws -> Bool {
        try connection.execute("SELECT \(OnlineLease.heldElsewhereSQL(key: "$1", catalog: self))", [OnlineLease.key(of: name)])
            .first?.decode(Bool.self, at: 0) ?? false
    }

    /// The error of a tenant another session migrates online: a lock not available (55P03), so
    /// runners retry it with backoff as they do any busy lock.
    static func heldByOnlineRun(_ name: TenantName) -> PQError {
        PQError(kind: .server, message: "an online migration of tenant \(name) runs in another session", sqlState: .lockNotAvailable)
    }

    /// The statement that locks the tenant's row (see ``lockTenant(_:on:)``), to send in a
    /// pipeline; it returns one row whether or not the tenant exists. With `lockTimeout`, the same
    /// statement first sets the transaction's `lock_timeout` (`set_config`, which the `SELECT`
    /// evaluates before the lock it waits for), where `SET LOCAL` is not needed (not on Citus).
    ///
    /// The online lease must be read by a later statement: one that waited for the row sees
    /// nothing its last holder committed, but a statement after it does.
    func lockStatement(_ name: TenantName, settingLockTimeout lockTimeout: String? = nil) -> Statement {
        let row = { (parameter: Int) -> SQL in
            "(SELECT 1 FROM \(self.table("tenants")) WHERE name = $\(int: parameter) FOR UPDATE)"
        }
        guard let lockTimeout else { return Statement("SELECT \(row(1))", [name.rawValue]).preparedPerConnection() }
        return Statement("SELECT pg_catalog.set_config('lock_timeout', $1, true), \(row(2))", [lockTimeout, name.rawValue]).preparedPerConnection()
    }

    /// The statement that reads the tenant's record (of a catalog with pins) for update, to send
    /// in a pipeline after ``lockStatement(_:settingLockTimeout:)``; its rows decode with
    /// ``TenantRecord/init(row:)``, and their column `held_online` says whether a live online run
    /// of another session holds the tenant.
    func lockedRecordStatement(_ name: TenantName) -> Statement {
        Statement(
            """
            SELECT \(TenantRecord.columns), \(OnlineLease.heldElsewhereSQL(key: "$2", catalog: self)) AS held_online \
            FROM \(table("tenants")) WHERE name = $1 FOR UPDATE
            """,
            [name.rawValue, OnlineLease.key(of: name)]
        ).preparedPerConnection()
    }

    /// Records that `tenant` is now at `version`, ready, and announces it on ``notificationChannel``.
    public func recordVersion(_ tenant: TenantName, version: String, versionHash: String, on connection: Connection) throws {
        try connection.execute(recordVersionStatement(tenant, version: version, versionHash: versionHash))
    }

    /// The statement of ``recordVersion(_:version:versionHash:on:)``, to send in a pipeline.
    func recordVersionStatement(_ tenant: TenantName, version: String, versionHash: String) -> Statement {
        Statement(
            """
            UPDATE \(table("tenants")) SET version = $2, version_hash = $3, state = 'ready', \
            last_error = NULL, updated_at = now() WHERE name = $1\(Self.announcingChanges(parameter: 4))
            """,
            [tenant.rawValue, version, versionHash, notificationChannel]
        ).preparedPerConnection()
    }

    /// Marks `tenant` failed with `error` (its version is unchanged), and announces it on ``notificationChannel``.
    public func recordFailure(_ tenant: TenantName, error: String, on connection: Connection) throws {
        try connection.execute(
            "UPDATE \(table("tenants")) SET state = 'failed', last_error = $2, updated_at = now() WHERE name = $1\(Self.announcingChanges(parameter: 3))",
            [tenant.rawValue, error, notificationChannel]
        )
    }

    /// Appends one row to the migration history.
    public func recordHistory(_ entry: HistoryEntry, on connection: Connection) throws {
        try connection.execute(try historyStatement(entry))
    }

    /// The statement of ``recordHistory(_:on:)``, to send in a pipeline.
    func historyStatement(_ entry: HistoryEntry) throws -> Statement {
        Statement(
            """
            INSERT INTO \(table("migration_history"))
                (tenant, family, operation, from_version, to_version, started_at, outcome, error, sqlstate, statistics)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
            """,
            [
                entry.tenant.rawValue, entry.family, entry.operation.rawValue, entry.fromVersion, entry.toVersion,
                entry.startedAt, entry.outcome.rawValue, entry.error, entry.sqlState,
                PQJSON(numbers: entry.statistics),
            ]
        ).preparedPerConnection()
    }
}
