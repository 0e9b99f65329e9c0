import EntityModel
import LibPQ
import TypedSQL

/// The catalog's writes as SQL text with literals, one statement each: for pipelines that send a
/// tenant's whole creation in one round trip, and for the benchmarks' psql baselines, which must
/// send exactly what the library sends.
extension TenantCatalog {
    /// Registers tenant `tenant` with its schema at `version`, ready.
    package func registerSQL(_ tenant: String, schema tenantSchema: String, family: String, version: ModelVersion, quoting q: some SQLQuoting) -> String {
        """
        INSERT INTO \(qualified("tenants", q)) (name, schema_name, family, version, version_hash)
        VALUES (\(q.quoteLiteral(tenant)), \(q.quoteLiteral(tenantSchema)), \(q.quoteLiteral(family)), \(q.quoteLiteral(version.name)), \(q.quoteLiteral(version.versionHash)))
        """
    }

    /// Records that tenant `tenant` is now at `version`, ready, and announces it on
    /// ``notificationChannel``, as ``recordVersion(_:version:versionHash:on:)`` does.
    package func recordVersionSQL(_ tenant: String, version: ModelVersion, quoting q: some SQLQuoting) -> String {
        """
        UPDATE \(qualified("tenants", q)) SET version = \(q.quoteLiteral(version.name)), version_hash = \(q.quoteLiteral(version.versionHash)), \
        state = 'ready', last_error = NULL, updated_at = pg_catalog.now() WHERE name = \(q.quoteLiteral(tenant)) \
        RETURNING pg_catalog.pg_notify(\(q.quoteLiteral(notificationChannel)), name)
        """
    }

    /// Appends a succeeded history row for `operation`, started now.
    package func historySQL(
        _ tenant: String, family: String, operation: HistoryEntry.Operation, from source: String? = nil, to destination: String,
        statisticsJSON: String? = nil, quoting q: some SQLQuoting
    ) -> String {
        """
        INSERT INTO \(qualified("migration_history", q)) (tenant, family, operation, from_version, to_version, started_at, outcome, statistics)
        VALUES (\(q.quoteLiteral(tenant)), \(q.quoteLiteral(family)), \(q.quoteLiteral(operation.rawValue)), \
        \(source.map(q.quoteLiteral) ?? "NULL"), \(q.quoteLiteral(destination)), pg_catalog.now(), 'succeeded', \
        \(q.quoteLiteral(statisticsJSON ?? "{}"))::jsonb)
        """
    }
}
