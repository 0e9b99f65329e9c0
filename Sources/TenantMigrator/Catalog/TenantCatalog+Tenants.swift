import EntityModel
import Foundation
import LibPQ

extension TenantCatalog {
    /// Every tenant, by name; optionally only those of `family`.
    public func tenants(family: String? = nil, on connection: Connection) throws -> [TenantRecord] {
        try records(on: connection) { columns in
            try connection.execute(
                "SELECT \(columns) FROM \(qualified("tenants", connection)) WHERE $1::text IS NULL OR family = $1 ORDER BY name",
                [family]
            )
        }
    }

    /// The tenant named `name`, or nil.
    public func tenant(_ name: TenantName, on connection: Connection, forUpdate: Bool = false) throws -> TenantRecord? {
        try records(on: connection) { columns in
            try connection.execute(
                "SELECT \(columns) FROM \(qualified("tenants", connection)) WHERE name = $1\(forUpdate ? " FOR UPDATE" : "")",
                [name.rawValue]
            )
        }.first
    }

    /// The records `query` reads with the columns it is given. A catalog of version 1 (before pins),
    /// which read-only calls and trial runs never upgrade, is read again without the pin columns:
    /// its tenants are unpinned. Inside a transaction the first try runs in a savepoint, so that its
    /// failure does not abort the transaction (a trial run, or a drop, on a catalog not upgraded yet).
    private func records(on connection: Connection, _ query: (String) throws -> QueryResult) throws -> [TenantRecord] {
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

    /// Takes the tenant's advisory lock until the end of the current transaction if no other
    /// session holds it (a migration, online or not); returns whether it did.
    public func tryLockTenant(_ name: TenantName, on connection: Connection) throws -> Bool {
        try connection.execute("SELECT pg_catalog.pg_try_advisory_xact_lock(pg_catalog.hashtext($1), pg_catalog.hashtext($2))", [schema, name.rawValue])
            .first?.decode(Bool.self, at: 0) ?? false
    }

    /// Takes the tenant's advisory lock until the end of the current transaction.
    ///
    /// The key is derived from (catalog, tenant), so runners on different tenants never wait for
    /// each other, and two runners on the same tenant serialize.
    public func lockTenant(_ name: TenantName, on connection: Connection) throws {
        try connection.execute(lockStatement(name))
    }

    /// The statement of ``lockTenant(_:on:)``, to send in a pipeline. With `lockTimeout`, the same
    /// statement first sets the transaction's `lock_timeout` (`set_config`, which the `SELECT`
    /// evaluates before the lock it waits for), where `SET LOCAL` is not needed (not on Citus).
    func lockStatement(_ name: TenantName, settingLockTimeout lockTimeout: String? = nil) -> Statement {
        guard let lockTimeout else {
            return Statement("SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext($1), pg_catalog.hashtext($2))", [schema, name.rawValue])
                .preparedPerConnection()
        }
        return Statement(
            "SELECT pg_catalog.set_config('lock_timeout', $1, true), pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext($2), pg_catalog.hashtext($3))",
            [lockTimeout, schema, name.rawValue]
        ).preparedPerConnection()
    }

    /// The statement that reads the tenant's record (of a catalog with pins) for update, to send
    /// in a pipeline; its rows decode with ``TenantRecord/init(row:)``.
    func lockedRecordStatement(_ name: TenantName, _ quoting: some SQLQuoting) -> Statement {
        Statement("SELECT \(TenantRecord.columns) FROM \(qualified("tenants", quoting)) WHERE name = $1 FOR UPDATE", [name.rawValue]).preparedPerConnection()
    }

    /// Records that `tenant` is now at `version`, ready, and announces it on ``notificationChannel``.
    public func recordVersion(_ tenant: TenantName, version: String, versionHash: String, on connection: Connection) throws {
        try connection.execute(recordVersionStatement(tenant, version: version, versionHash: versionHash, connection))
    }

    /// The statement of ``recordVersion(_:version:versionHash:on:)``, to send in a pipeline.
    func recordVersionStatement(_ tenant: TenantName, version: String, versionHash: String, _ quoting: some SQLQuoting) -> Statement {
        Statement(
            "UPDATE \(qualified("tenants", quoting)) SET version = $2, version_hash = $3, state = 'ready', "
                + "last_error = NULL, updated_at = now() WHERE name = $1" + Self.announcingChanges(parameter: 4),
            [tenant.rawValue, version, versionHash, notificationChannel]
        ).preparedPerConnection()
    }

    /// Marks `tenant` failed with `error` (its version is unchanged), and announces it on ``notificationChannel``.
    public func recordFailure(_ tenant: TenantName, error: String, on connection: Connection) throws {
        try connection.execute(
            "UPDATE \(qualified("tenants", connection)) SET state = 'failed', last_error = $2, updated_at = now() WHERE name = $1"
                + Self.announcingChanges(parameter: 3),
            [tenant.rawValue, error, notificationChannel]
        )
    }

    /// Appends one row to the migration history.
    public func recordHistory(_ entry: HistoryEntry, on connection: Connection) throws {
        try connection.execute(try historyStatement(entry, connection))
    }

    /// The statement of ``recordHistory(_:on:)``, to send in a pipeline.
    func historyStatement(_ entry: HistoryEntry, _ quoting: some SQLQuoting) throws -> Statement {
        Statement(
            """
            INSERT INTO \(qualified("migration_history", quoting))
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
