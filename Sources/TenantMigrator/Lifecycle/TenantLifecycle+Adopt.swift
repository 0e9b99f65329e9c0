import EntityModel
import Foundation
import LibPQ
import MigrationEngine

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
            let exists = try connection.execute("SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1", [schema]).rowCount > 0
            guard exists else { throw TenantMigratorError.schemaMissing(schema) }
            if let owner = try catalog.tenant(owning: schema, on: connection) {
                throw TenantMigratorError.schemaBelongsToTenant(schema, tenant: owner)
            }
            let live = try SchemaSnapshot.read(schema: schema, on: connection)
            var closest: (version: ModelVersion, differences: [SchemaDifference])?
            for version in family.versions.reversed() {
                let differences = live.differences(from: try SchemaSnapshot.expected(for: version, on: connection))
                if differences.isEmpty {
                    // What the schema's tables already use runs as the migrator when it writes their rows.
                    let untrusted = try ExpressionTrust.existing(inSchema: schema, on: connection)
                        + ExpressionTrust.modelObjects(of: version, inSchema: schema, on: connection)
                    guard untrusted.isEmpty else { throw UntrustedExpression(findings: untrusted) }
                    try catalog.register(name, schema: schema, family: family.name, version: version, on: connection)
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
}
