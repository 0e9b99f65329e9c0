
extension TenantMigrator {
    /// The tenant named `name` in this family, or nil when there is none. Reads only: it never
    /// creates the catalog.
    ///
    /// - Throws: ``TenantMigratorError/invalidTenantName(_:reason:)`` for a name that cannot be a tenant's.
    public func tenant(named name: String) async throws -> TenantRecord? {
        let name = try TenantName(name)
        let catalog = self.catalog, family = self.family.name
        return try await withExistingCatalog(absent: { nil }) { connection in
            try catalog.tenant(name, on: connection).flatMap { $0.family == family ? $0 : nil }
        }
    }

    /// The schema that holds tenant `name`'s tables (`tenant_<name>`, or the schema it was adopted
    /// from), or nil when there is no such tenant. Use it instead of building the name yourself.
    public func schemaName(for name: String) async throws -> String? {
        try await tenant(named: name)?.schema
    }
}
