import EntityModel
import Foundation
import LibPQ

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
        let literal = connection.quoteLiteral
        var statements = [
            "SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext(\(literal(catalog.schema))), pg_catalog.hashtext(\(literal(name.rawValue))))",
        ]
        statements += try connection.distributingNewSchemas().map(\.sql)
        statements += access.schemaStatements(schema, connection)
        statements += version.relationalSchema().createStatements(inSchema: schema, quoting: connection)
        statements += access.grantStatements(schema, connection)
        statements.append("""
            INSERT INTO \(catalog.qualified("tenants", connection)) (name, schema_name, family, version, version_hash)
            VALUES (\(literal(name.rawValue)), \(literal(schema)), \(literal(family.name)), \(literal(version.name)), \(literal(version.versionHash)))
            """)
        statements.append("""
            INSERT INTO \(catalog.qualified("migration_history", connection))
                (tenant, family, operation, to_version, started_at, outcome, statistics)
            VALUES (\(literal(name.rawValue)), \(literal(family.name)), 'create', \(literal(version.name)), now(), 'succeeded',
                    \(literal("{\"tables\": \(version.relationalSchema().tables.count)}")))
            """)
        do {
            try connection.transactionPipeline(statements.map { Statement($0) })
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
