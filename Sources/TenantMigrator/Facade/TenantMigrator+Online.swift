import Foundation
import LibPQ

/// What `online cleanup` found for one tenant.
public struct OnlineCleanupResult: Sendable, Codable, Hashable {
    public enum Outcome: String, Sendable, Codable {
        /// Triggers or private schemas of a run that stopped before its cutover were removed.
        case removed
        /// Nothing was left.
        case clean
        /// An online migration of the tenant is running: left alone.
        case running
    }

    public var tenant: String
    public var outcome: Outcome
}

extension TenantMigrator {
    /// Removes what online migrations that stopped before their cutover left (a killed process, a
    /// lost connection): the change capture's triggers on the live tables, which are inert but
    /// cost a function call per written row, and the runs' private schemas. The next migration of
    /// a tenant, online or not, removes them too; this is for tenants no migration is about to
    /// touch. A tenant whose online migration is running (its runner's session lives and holds the
    /// tenant's lease, ``OnlineLease``), or that another migration holds, is left alone. Every tenant of the family, or `tenant`.
    public func cleanUpOnlineMigrations(tenant: String? = nil) async throws -> [OnlineCleanupResult] {
        let records = try await tenants().filter { tenant == nil || $0.name.rawValue == tenant }
        let catalog = self.catalog, executor = self.executor
        return try await withExistingCatalog(absent: { [] }) { connection in
            try records.map { record in
                let cleanup = OnlineCleanup(schemas: try OnlineSchemas.of(record.schema, on: connection), executor: executor)
                return OnlineCleanupResult(tenant: record.name.rawValue, outcome: try cleanup.removeRun(unlessHeld: record.name, catalog: catalog, on: connection))
            }
        }
    }
}
