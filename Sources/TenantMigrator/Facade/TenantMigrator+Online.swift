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
    /// touch. A tenant whose online migration is running (its runner holds the tenant's lock) is
    /// left alone. Every tenant of the family, or `tenant`.
    public func cleanUpOnlineMigrations(tenant: String? = nil) async throws -> [OnlineCleanupResult] {
        let records = try await tenants().filter { tenant == nil || $0.name.rawValue == tenant }
        let catalog = self.catalog, runner = self.runner
        return try await withExistingCatalog(absent: { [] }) { connection in
            try records.map { record in
                let key = try ChangeCapture.lockKey(catalog: catalog, tenant: record.name, on: connection)
                let free = try connection.execute("SELECT pg_catalog.pg_try_advisory_lock($1::pg_catalog.int4, $2::pg_catalog.int4)", [key.0, key.1])
                    .first?.decode(Bool.self, at: 0) ?? false
                guard free else { return OnlineCleanupResult(tenant: record.name.rawValue, outcome: .running) }
                defer { _ = try? connection.execute("SELECT pg_catalog.pg_advisory_unlock($1::pg_catalog.int4, $2::pg_catalog.int4)", [key.0, key.1]) }
                let cleanup = OnlineCleanup(schemas: try OnlineSchemas.of(record.schema, on: connection), runner: runner)
                guard try cleanup.isNeeded(on: connection) else { return OnlineCleanupResult(tenant: record.name.rawValue, outcome: .clean) }
                try cleanup.removeRun(on: connection)
                return OnlineCleanupResult(tenant: record.name.rawValue, outcome: .removed)
            }
        }
    }
}
