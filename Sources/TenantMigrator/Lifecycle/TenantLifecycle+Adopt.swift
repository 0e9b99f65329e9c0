import EntityModel
import Foundation
import LibPQ

extension TenantLifecycle {
    /// Registers an existing, unregistered schema as tenant `name`, at whichever version of the
    /// family it matches exactly, found by introspection (as Core Data finds the model compatible
    /// with a store).
    ///
    /// - Throws: ``TenantMigratorError/adoptionFailed(schema:closest:differences:)`` naming the closest
    ///   version and its differences when none matches;
    ///   ``TenantMigratorError/schemaBelongsToTenant(_:tenant:)`` when another tenant has the schema.
    @discardableResult
    public func adopt(_ name: TenantName, schema: String, on connection: Connection) throws -> TenantRecord {
        let started = Date()
        return try connection.transaction { connection in
            try catalog.lockTenant(name, on: connection)
            if try catalog.tenant(name, on: connection) != nil { throw TenantMigratorError.tenantExists(name) }
            let exists = try connection.execute("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]).rowCount > 0
            guard exists else { throw TenantMigratorError.schemaMissing(schema) }
            if let owner = try tenantOwning(schema: schema, on: connection) {
                throw TenantMigratorError.schemaBelongsToTenant(schema, tenant: owner)
            }
            let live = try SchemaSnapshot.read(schema: schema, on: connection)
            var closest: (version: ModelVersion, differences: [SchemaDifference])?
            for version in family.versions.reversed() {
                let differences = live.differences(from: try SchemaSnapshot.expected(for: version, on: connection))
                if differences.isEmpty {
                    try register(name, schema: schema, version: version, on: connection)
                    try catalog.recordHistory(
                        HistoryEntry(tenant: name, family: family.name, operation: .adopt, fromVersion: nil,
                                     toVersion: version.name, startedAt: started, outcome: .succeeded),
                        on: connection
                    )
                    return try catalog.requireTenant(name, on: connection)
                }
                if closest == nil || differences.count < closest!.differences.count {
                    closest = (version, differences)
                }
            }
            throw TenantMigratorError.adoptionFailed(
                schema: schema, closest: closest?.version.name,
                differences: closest?.differences.map(\.description) ?? []
            )
        }
    }

    /// Inserts the catalog row. A tenant adopting the same schema at the same moment commits first
    /// and makes the insert fail with 23505; that is reported as the clash it is.
    private func register(_ name: TenantName, schema: String, version: ModelVersion, on connection: Connection) throws {
        do {
            try connection.savepoint { connection in
                _ = try connection.execute(
                    "INSERT INTO \(catalog.qualified("tenants", connection)) (name, schema_name, family, version, version_hash) "
                        + "VALUES ($1, $2, $3, $4, $5)",
                    [name.rawValue, schema, family.name, version.name, version.versionHash]
                )
            }
        } catch let error as PQError where error.sqlState == .uniqueViolation {
            if let owner = try tenantOwning(schema: schema, on: connection) {
                throw TenantMigratorError.schemaBelongsToTenant(schema, tenant: owner)
            }
            if try catalog.tenant(name, on: connection) != nil { throw TenantMigratorError.tenantExists(name) }
            throw error
        }
    }

    /// The tenant registered with `schema`, if any (of any family).
    private func tenantOwning(schema: String, on connection: Connection) throws -> TenantName? {
        try connection.execute(
            "SELECT name FROM \(catalog.qualified("tenants", connection)) WHERE schema_name = $1", [schema]
        ).first.map { try TenantName(try $0.decode(String.self, at: 0)) }
    }
}
