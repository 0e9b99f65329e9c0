import LibPQ

/// Removes what an online run of one tenant leaves behind when it stops before its cutover: the
/// capture triggers on the live tables and the run's private schemas (shadow, log, state, delta);
/// on Citus, the run's objects in the tenant's own schema (``InSchemaLeftovers``).
///
/// The next online run of the tenant calls it first, and so does `tenant-migrate online cleanup`;
/// an offline migration drops the triggers it finds in its own transaction (``ForeignHooks``).
/// Dropping a trigger takes ACCESS EXCLUSIVE on its table, so the tables are locked the way every
/// migration locks them: under `lock_timeout`, never waiting for one while holding another, and
/// retried with backoff.
struct OnlineCleanup {
    let schemas: OnlineSchemas
    let executor: TenantExecutor

    /// Whether anything of a run is left.
    func isNeeded(on connection: Connection) throws -> Bool {
        try !ChangeCapture.capturedTables(inSchema: schemas.tenant, on: connection).isEmpty
            || OnlineSchemas.existsAsOwn(schemas.work, on: connection) || OnlineSchemas.existsAsOwn(schemas.delta, on: connection)
            || InSchemaLeftovers.exist(in: schemas.tenant, on: connection)
    }

    /// Removes the triggers, then the private schemas, in one transaction (for the run that holds
    /// the tenant itself).
    func removeRun(on connection: Connection) throws {
        guard try isNeeded(on: connection) else { return }
        _ = try removeRun(holding: nil, on: connection)
    }

    /// Removes the triggers, then the private schemas, in one transaction that holds `tenant`
    /// (``TenantCatalog/tryLockTenant(_:on:)``): unless another migration, online or not, holds it.
    func removeRun(unlessHeld tenant: TenantName, catalog: TenantCatalog, on connection: Connection) throws -> OnlineCleanupResult.Outcome {
        try removeRun(holding: (tenant, catalog), on: connection)
    }

    private func removeRun(holding tenant: (name: TenantName, catalog: TenantCatalog)?, on connection: Connection) throws -> OnlineCleanupResult.Outcome {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try connection.transaction { connection in
                    try TenantExecutor.setLockTimeout(executor.settings.lockTimeout, on: connection)
                    if let tenant {
                        guard try tenant.catalog.tryLockTenant(tenant.name, on: connection) else { return .running }
                        guard try isNeeded(on: connection) else { return .clean }
                    }
                    let captured: [SQL] = try ChangeCapture.capturedTables(inSchema: schemas.tenant, on: connection).map { "\(quotedByServer: $0)" }
                    try TenantExecutor.lockTables(captured, on: connection)
                    try ChangeCapture.removeTriggers(from: captured, on: connection)
                    try InSchemaLeftovers.drop(in: schemas.tenant, on: connection)
                    try OnlineSchemas.drop(schemas.work, on: connection)
                    try OnlineSchemas.drop(schemas.delta, on: connection)
                    return .removed
                }
            } catch where TenantExecutor.isRetryable(error) && attempt < executor.settings.maxAttempts {
                try TenantExecutor.sleep(executor.backoff(afterAttempt: attempt))
            }
        }
    }

    /// In an offline migration's transaction, which holds the tenant's tables: drops the capture
    /// triggers found on `capturedTables` (qualified) and the private schemas of the run that left them.
    static func removeLeftovers(of schema: String, capturedTables: [String], on connection: Connection) throws {
        connection.logger.warning("removing the change capture an online migration left on \(capturedTables.joined(separator: ", ")) when it stopped before its cutover")
        try ChangeCapture.removeTriggers(from: capturedTables.map { "\(quotedByServer: $0)" }, on: connection)
        try InSchemaLeftovers.drop(in: schema, on: connection)
        let schemas = try OnlineSchemas.of(schema, on: connection)
        try OnlineSchemas.drop(schemas.work, on: connection)
        try OnlineSchemas.drop(schemas.delta, on: connection)
    }
}
