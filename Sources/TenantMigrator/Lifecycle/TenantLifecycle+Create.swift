import EntityModel
import Foundation
import LibPQ
import MigrationEngine

extension TenantLifecycle {
    /// Creates tenant `name` directly at `version` (the latest by default): its schema, every
    /// table, and its catalog record, in one transaction and one round trip (a pipeline of single
    /// statements). On Citus the schema becomes a distributed schema, its tables colocated on one
    /// worker, before any row exists.
    ///
    /// - Throws: ``TenantMigratorError/tenantExists(_:)``, ``TenantMigratorError/schemaExists(_:tenant:)``, or a
    ///   ``PQError``.
    @discardableResult
    /// - Parameter access: who owns the tenant's objects and which app role may use them.
    public func create(
        _ name: TenantName, version versionName: String? = nil, access: TenantAccess = TenantAccess(), on connection: Connection
    ) throws -> TenantRecord {
        let version = try version(named: versionName)
        let schema = name.defaultSchemaName
        let started = Date()
        try ExpressionTrust(version: version).check(on: connection)
        // No lock to take: the catalog's primary key serializes two creations of one tenant.
        var statements = try connection.distributingNewSchemas()
        statements += (access.schemaStatements() + version.relationalSchema().creationStatements + access.grantStatements())
            .map { Statement($0, schema: schema) }
        statements.append(Statement(catalog.registerSQL(name.rawValue, schema: schema, family: family.name, version: version)))
        statements.append(Statement(catalog.historySQL(
            name.rawValue, family: family.name, operation: .create, to: version.name,
            statisticsJSON: "{\"tables\": \(version.relationalSchema().tables.count)}"
        )))
        do {
            try connection.transactionPipeline(statements)
        } catch SQLState.duplicateSchema {
            if try catalog.tenant(name, on: connection) != nil { throw TenantMigratorError.tenantExists(name) }
            throw TenantMigratorError.schemaExists(schema, tenant: name)
        } catch SQLState.uniqueViolation {
            throw TenantMigratorError.tenantExists(name)
        }
        connection.logger.info("created tenant \(name) at \(family.name) \(version.name)", metadata: [
            "tenant": "\(name)", "ms": "\(Int(Date().timeIntervalSince(started) * 1000))",
        ])
        return try catalog.requireTenant(name, on: connection)
    }
}
