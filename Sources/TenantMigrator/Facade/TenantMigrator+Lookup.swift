import Foundation

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

extension TenantMigrator {
    /// What the app's own PostgreSQL client (PostgresNIO, a pool of its own, …) needs to reach
    /// tenant `name`'s tables: its schema and the `search_path` to set. Nil when there is no such
    /// tenant. Reads only.
    ///
    /// ```swift
    /// guard let tenant = try await migrator.tenantSession(for: "acme") else { throw NotFound() }
    /// // PostgresNIO: interpolations are bound as parameters.
    /// try await connection.query("SELECT pg_catalog.set_config('search_path', \(tenant.searchPath), false)", logger: logger)
    /// ```
    public func tenantSession(for name: String) async throws -> TenantSession? {
        try await tenant(named: name).map { TenantSession(tenant: $0.name.rawValue, schema: $0.schema) }
    }
}

/// How an app's own sessions reach one tenant's tables. See ``TenantMigrator/tenantSession(for:)``.
public struct TenantSession: Sendable, Hashable, Codable {
    /// The tenant's name.
    public let tenant: String
    /// The schema holding the tenant's tables, unquoted: `tenant_acme`.
    public let schema: String

    public init(tenant: String, schema: String) {
        self.tenant = tenant
        self.schema = schema
    }

    /// The value for `search_path`: the tenant's schema as a quoted identifier (`"tenant_acme"`),
    /// so unqualified table names resolve in the tenant's schema. `pg_catalog` is searched first
    /// anyway, as PostgreSQL always does when it is not listed. Pass it as a parameter of
    /// `pg_catalog.set_config('search_path', $1, false)`, or as the `search_path` startup option.
    public var searchPath: String {
        "\"" + schema.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The statement that points the current session at the tenant, with the value inlined as a
    /// literal, for clients that cannot bind parameters. Prefer binding ``searchPath``.
    public var setSearchPathSQL: String {
        "SELECT pg_catalog.set_config('search_path', '" + searchPath.replacingOccurrences(of: "'", with: "''") + "', false)"
    }
}
