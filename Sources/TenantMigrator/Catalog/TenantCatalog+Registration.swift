import EntityModel
import LibPQ
import TypedSQL

/// Registering and removing tenants: the catalog rows behind adopt and drop.
extension TenantCatalog {
    /// Inserts tenant `name`'s row: `schema` at `version` of `family`, ready. A tenant registering
    /// the same schema at the same moment commits first and makes the insert fail with 23505; that
    /// is reported as the clash it is (``TenantMigratorError/schemaBelongsToTenant(_:tenant:)`` or
    /// ``TenantMigratorError/tenantExists(_:)``).
    public func register(_ name: TenantName, schema: String, family: String, version: ModelVersion, on connection: Connection) throws {
        do {
            try connection.savepoint { connection in
                _ = try connection.execute(
                    "INSERT INTO \(table("tenants")) (name, schema_name, family, version, version_hash) VALUES ($1, $2, $3, $4, $5)",
                    [name.rawValue, schema, family, version.name, version.versionHash]
                )
            }
        } catch let error as PQError where error.sqlState == .uniqueViolation {
            if let owner = try tenant(owning: schema, on: connection) {
                throw TenantMigratorError.schemaBelongsToTenant(schema, tenant: owner)
            }
            if try tenant(name, on: connection) != nil { throw TenantMigratorError.tenantExists(name) }
            throw error
        }
    }

    /// The tenant registered with `schema`, if any (of any family).
    public func tenant(owning schema: String, on connection: Connection) throws -> TenantName? {
        try connection.execute(
            "SELECT name FROM \(table("tenants")) WHERE schema_name = $1", [schema]
        ).first.map { try TenantName(try $0.decode(String.self, at: 0)) }
    }

    /// Removes tenant `name`'s row (its history stays), and announces it on ``notificationChannel``.
    public func deregister(_ name: TenantName, on connection: Connection) throws {
        try connection.execute(
            "DELETE FROM \(table("tenants")) WHERE name = $1\(Self.announcingChanges(parameter: 2))",
            [name.rawValue, notificationChannel]
        )
    }

    /// Refreshes the planner's statistics of the tenants table (after creating thousands at once).
    package func analyze(on connection: Connection) throws {
        try connection.execute("VACUUM ANALYZE \(table("tenants"))")
    }
}
