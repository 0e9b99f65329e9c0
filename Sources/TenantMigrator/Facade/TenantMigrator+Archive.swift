import Foundation
import LibPQ
import MigrationEngine

/// One tenant's archive entries for one step (`tenant-migrate archive list`).
public struct ArchiveUsage: Sendable, Codable {
    public var tenant: String
    public var usage: TenantArchive.Usage
}

extension TenantMigrator {
    /// The archive's entries and sizes per tenant and step (every tenant of the family, or `tenant`).
    public func archiveUsage(tenant: String? = nil) async throws -> [ArchiveUsage] {
        let records = try await tenants().filter { tenant == nil || $0.name.rawValue == tenant }
        // Reads only: never creates the catalog.
        return try await withExistingCatalog(absent: { [] }) { connection in
            try records.flatMap { record in
                try TenantArchive.usage(inSchema: record.schema, on: connection).map { ArchiveUsage(tenant: record.name.rawValue, usage: $0) }
            }
        }
    }

    /// Deletes archive entries older than `age` (every tenant of the family, or `tenant`); returns
    /// the number deleted per tenant. Each tenant is pruned in a transaction of its own, which
    /// also drops the old tables an online migration retired before then.
    public func pruneArchive(olderThan age: Duration, tenant: String? = nil) async throws -> [String: Int] {
        try await prune(olderThan: age, tenant: tenant).entries
    }

    /// ``pruneArchive(olderThan:tenant:)``, and, per tenant, the version of the retired tables it dropped.
    public func prune(olderThan age: Duration, tenant: String? = nil) async throws -> (entries: [String: Int], retiredTables: [String: String]) {
        let records = try await tenants().filter { tenant == nil || $0.name.rawValue == tenant }
        let cutoff = Date().addingTimeInterval(-age.inSeconds)
        let catalog = self.catalog
        return try await withExistingCatalog(absent: { ([:], [:]) }) { connection in
            var deleted: [String: Int] = [:]
            var retired: [String: String] = [:]
            for record in records {
                deleted[record.name.rawValue] = try connection.transaction { connection in
                    // Not while the tenant migrates: an online run has copied the archive it will swap in.
                    guard try catalog.tryLockTenant(record.name, on: connection) else {
                        connection.logger.warning("tenant \(record.name) is migrating; its archive is left for the next prune")
                        return 0
                    }
                    retired[record.name.rawValue] = try RetiredTables.prune(forTenantSchema: record.schema, olderThan: cutoff, on: connection)
                    return try TenantArchive.prune(inSchema: record.schema, olderThan: cutoff, on: connection)
                }
            }
            return (deleted, retired)
        }
    }
}

extension TenantMigrator {
    /// Puts back tenant `tenant`'s superseded archive entries (values a way back did not give back
    /// because the app's change won) whose version is the tenant's current one, under the tenant's
    /// lock and its tables', in one transaction, with what others attached to the tables switched off
    /// or checked as for a migration (``ForeignHooks``); returns how many
    /// (``TenantArchive/restoreSuperseded(inSchema:version:on:)``).
    ///
    /// - Throws: ``TenantMigratorError/unknownTenant(_:)``. Waits for a migration of the tenant to end.
    public func restoreSuperseded(tenant: String) async throws -> Int {
        let name = try TenantName(tenant)
        let catalog = self.catalog, family = self.family
        return try await withConnection { connection in
            try connection.transaction { connection in
                try catalog.lockTenant(name, on: connection)
                let record = try catalog.requireTenant(name, on: connection)
                guard record.family == family.name, let version = family.version(named: record.version) else { throw TenantMigratorError.unknownTenant(name) }
                // It writes the tenant's rows as a migration does: under the tables' lock, with what
                // others attached to them switched off or checked (``ForeignHooks``).
                let facts = try TenantSchemaFacts.lockingTables(of: version, tenant: name, schema: record.schema, catalog: catalog, family: family, on: connection)
                try facts.requireMigratable(name)
                let hooks = try ForeignHooks.disable(facts.hooks, inSchema: record.schema, on: connection)
                try ExpressionTrust.requireTrustedTenant(at: version, inSchema: record.schema, always: !facts.untrustedOwners.isEmpty, on: connection)
                let restored = try TenantArchive.restoreSuperseded(inSchema: record.schema, version: version, on: connection)
                try hooks.restore(on: connection)
                return restored
            }
        }
    }
}
