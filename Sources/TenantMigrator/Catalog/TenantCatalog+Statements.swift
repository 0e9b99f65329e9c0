import EntityModel
import LibPQ
import TypedSQL

/// The catalog's writes as statements with their values inline as literals, one statement each: for
/// pipelines that send a tenant's whole creation in one round trip, and for the benchmarks' psql
/// baselines, which must send exactly what the library sends (``SQL/text(schema:quoting:)``).
extension TenantCatalog {
    /// Registers tenant `tenant` with its schema at `version`, ready.
    package func registerSQL(_ tenant: String, schema tenantSchema: String, family: String, version: ModelVersion) -> SQL {
        """
        INSERT INTO \(table("tenants")) (name, schema_name, family, version, version_hash)
        VALUES (\(literals: [tenant, tenantSchema, family, version.name, version.versionHash]))
        """
    }

    /// Records that tenant `tenant` is now at `version`, ready, and announces it on
    /// ``notificationChannel``, as ``recordVersion(_:version:versionHash:on:)`` does.
    package func recordVersionSQL(_ tenant: String, version: ModelVersion) -> SQL {
        """
        UPDATE \(table("tenants")) SET version = \(literal: version.name), version_hash = \(literal: version.versionHash), \
        state = 'ready', last_error = NULL, updated_at = pg_catalog.now() WHERE name = \(literal: tenant) \
        RETURNING pg_catalog.pg_notify(\(literal: notificationChannel), name)
        """
    }

    /// Appends a succeeded history row for `operation`, started now.
    package func historySQL(
        _ tenant: String, family: String, operation: HistoryEntry.Operation, from source: String? = nil, to destination: String,
        statisticsJSON: String? = nil
    ) -> SQL {
        """
        INSERT INTO \(table("migration_history")) (tenant, family, operation, from_version, to_version, started_at, outcome, statistics)
        VALUES (\(literals: [tenant, family, operation.rawValue]), \
        \(source.map { "\(literal: $0)" } ?? "NULL"), \(literal: destination), pg_catalog.now(), 'succeeded', \
        \(literal: statisticsJSON ?? "{}")::jsonb)
        """
    }
}
