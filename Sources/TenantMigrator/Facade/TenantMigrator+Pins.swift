import EntityModel
import LibPQ
import MigrationEngine

extension TenantMigrator {
    /// Pins `tenant` at `version` (where it is when nil), so that `migrateIfNeeded` and fleet runs
    /// (``migrateAll(to:selection:jobs:failFast:allowDestructive:mode:control:progress:)``) leave it
    /// there. A tenant at another version is first migrated to `version`, either way, in the same
    /// transaction as the pin, under the usual consent rule: a plan that loses data needs
    /// `allowDestructive`.
    ///
    /// Only ``migrate(tenant:to:allowDestructive:mode:pins:)`` and
    /// ``rollback(tenant:to:allowDestructive:mode:pins:)`` of this one tenant move it again (a
    /// migration clears the pin, a rollback pins it at its new version), or ``unpin(tenant:)``.
    ///
    /// - Parameter reason: kept with the pin, for `status` (a rollback's own pin says `rolled back`).
    /// - Returns: the move, if any: outcome ``TenantMigrationResult/Outcome/migrated`` or
    ///   ``TenantMigrationResult/Outcome/alreadyCurrent``.
    @discardableResult
    public func pin(
        tenant: String, at version: String? = nil, reason: String? = nil, allowDestructive: Bool = false
    ) async throws -> TenantMigrationResult {
        let name = try TenantName(tenant)
        let target: String
        if let version {
            target = version
        } else {
            guard let record = try await self.tenant(named: tenant) else { throw TenantMigratorError.unknownTenant(name) }
            target = record.version
        }
        // Pinning where it is: a tenant moved since that read is refused (wrong direction), not moved back.
        return try await migrate(
            tenant: tenant, MigrationRequest(version == nil ? .stay : .move, to: target, allowDestructive: allowDestructive, pins: .pin(reason: reason))
        )
    }

    /// Clears `tenant`'s pin: the next `migrateIfNeeded` or fleet run moves it like any other tenant.
    ///
    /// - Returns: whether the tenant was pinned (unpinning an unpinned tenant changes nothing).
    /// - Throws: ``TenantMigratorError/unknownTenant(_:)``, ``TenantMigratorError/familyMismatch(tenant:recorded:configured:)``.
    @discardableResult
    public func unpin(tenant: String) async throws -> Bool {
        let name = try TenantName(tenant)
        let catalog = self.catalog, family = self.family.name, lockTimeout = self.lockTimeout
        return try await withConnection { connection in
            try connection.transaction { connection in
                // Waits behind a migration of the tenant in flight, for at most lockTimeout.
                try TenantExecutor.setLockTimeout(lockTimeout, on: connection)
                try catalog.lockTenant(name, on: connection)
                let record = try catalog.requireTenant(name, on: connection, forUpdate: true)
                guard record.family == family else {
                    throw TenantMigratorError.familyMismatch(tenant: name, recorded: record.family, configured: family)
                }
                return try catalog.unpin(name, on: connection)
            }
        }
    }
}
