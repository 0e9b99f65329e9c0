import EntityModel
import MigrationEngine

extension TenantMigrator {
    /// Creates a tenant at `version` (the latest by default), in one transaction.
    @discardableResult
    ///
    /// - Parameter access: who owns the tenant's objects and which app role may use them
    ///   (docs/Security.md).
    public func createTenant(_ name: String, version: String? = nil, access: TenantAccess = TenantAccess()) async throws -> TenantRecord {
        let name = try TenantName(name)
        // A superuser provisioning a tenant for the migrator role trusts that role's catalog.
        let catalog = self.catalog.trusting(access.owner), lifecycle = TenantLifecycle(catalog: catalog, family: family)
        return try await withConnection(catalog: catalog) { try lifecycle.create(name, version: version, access: access, on: $0) }
    }

    /// Drops a tenant's schema and data. `confirmed` must be true.
    public func dropTenant(_ name: String, confirmed: Bool) async throws {
        let name = try TenantName(name)
        let lifecycle = self.lifecycle, catalog = self.catalog
        try await withExistingCatalog(absent: { throw TenantMigratorError.unknownTenant(name) }) {
            try catalog.install(on: $0)  // a write: bring an older catalog up to date first
            try lifecycle.drop(name, confirmed: confirmed, on: $0)
        }
    }

    /// Registers an existing schema as a tenant, at the version it matches.
    @discardableResult
    public func adoptTenant(_ name: String, schema: String) async throws -> TenantRecord {
        let name = try TenantName(name)
        let lifecycle = self.lifecycle
        return try await withConnection { try lifecycle.adopt(name, schema: schema, on: $0) }
    }

    /// Every tenant of this family. Reads only: a catalog that does not exist yet has no tenants.
    public func tenants() async throws -> [TenantRecord] {
        let catalog = self.catalog, family = self.family.name
        return try await withExistingCatalog(absent: { [] }) { try catalog.tenants(family: family, on: $0) }
    }

    /// Every tenant with whether it is at the latest version, and on Citus the node that holds it.
    public func status() async throws -> [TenantStatus] {
        let latest = family.latestVersion
        let placement = try await citusPlacement()
        return try await tenants().map { record in
            var status = TenantStatus(record: record, latestVersion: latest.name,
                                      modelChanged: record.versionHash != (family.version(named: record.version)?.versionHash ?? ""))
            status.node = placement?.nodeBySchema[record.schema]
            return status
        }
    }

    /// On a Citus coordinator, its workers and the node of each distributed schema; nil elsewhere.
    /// Reads only.
    public func citusPlacement() async throws -> CitusPlacement? {
        try await withPlainConnection { try CitusPlacement.read(on: $0) }
    }

    /// Compares the live schemas of `tenants` (all when nil) with their recorded versions; with
    /// `strict`, also reports tables whose columns are out of model order. Reads only.
    public func verify(tenants names: [String]? = nil, strict: Bool = false) async throws -> [VerificationReport] {
        let names = try names.map { try $0.map(TenantName.init) }
        let lifecycle = self.lifecycle, catalog = self.catalog, family = self.family.name
        return try await withExistingCatalog(absent: {
            if let first = names?.first { throw TenantMigratorError.unknownTenant(first) }
            return []
        }) { connection in
            let selected = try names ?? catalog.tenants(family: family, on: connection).map(\.name)
            return try selected.map { try lifecycle.verify($0, on: connection, strict: strict) }
        }
    }

    /// Puts the columns of the tenants' tables back in model order where they are not (columns an
    /// up migration appended), as a rollback does: tables of at most
    /// ``ColumnOrderRebuild/smallTableRows`` rows, each tenant in one transaction under its lock
    /// (``ColumnOrderRebuild``). Returns the tables rebuilt per tenant (tenants with none left out).
    ///
    /// - Throws: ``TenantMigratorError/unknownTenant(_:)``. Waits for a migration of a tenant to end.
    public func reorderColumns(tenants names: [String]? = nil) async throws -> [String: [String]] {
        let names = try names.map { try $0.map(TenantName.init) }
        let catalog = self.catalog, family = self.family
        return try await withConnection { connection in
            var rebuilt: [String: [String]] = [:]
            for name in try names ?? catalog.tenants(family: family.name, on: connection).map(\.name) {
                let tables = try connection.transaction { connection in
                    try catalog.lockTenant(name, on: connection)
                    let record = try catalog.requireTenant(name, on: connection)
                    guard record.family == family.name, let version = family.version(named: record.version) else { throw TenantMigratorError.unknownTenant(name) }
                    return try ColumnOrderRebuild.rebuild(version, inSchema: record.schema, on: connection)
                }
                if !tables.isEmpty { rebuilt[name.rawValue] = tables }
            }
            return rebuilt
        }
    }
}

/// A tenant and how it stands against the family's latest version.
public struct TenantStatus: Sendable, Codable {
    public var record: TenantRecord
    public var latestVersion: String
    /// The tenant's version file changed after the tenant reached it (its hash differs).
    public var modelChanged: Bool
    /// On Citus, the `host:port` of the node that holds the tenant's tables; nil elsewhere.
    public var node: String?

    /// Whether the tenant is at the latest version.
    public var isCurrent: Bool { record.version == latestVersion }
}
