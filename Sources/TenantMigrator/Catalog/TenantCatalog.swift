import EntityModel
import LibPQ
import TypedSQL

/// The tool's own schema: which tenants exist, at which version, and every migration attempt.
///
/// The catalog lives in one schema (`tenant_migrator` by default; any name works, so several
/// applications can share a database). ``install(on:)`` creates or upgrades it and is idempotent;
/// the catalog carries a version of its own so later releases can evolve it.
public struct TenantCatalog: Sendable, Hashable {
    /// The catalog's schema name.
    public let schema: String

    /// The default catalog schema.
    public static let defaultSchema = "tenant_migrator"

    public init(schema: String = TenantCatalog.defaultSchema) {
        self.schema = schema
    }

    /// A table of the catalog's schema: `"tenant_migrator"."tenants"`.
    func table(_ name: String) -> SQL {
        "\(schema: schema, table: name)"
    }

    /// Creates the catalog, or upgrades it to ``CatalogSchema/currentVersion``. Costs one
    /// round trip when the catalog is already current.
    ///
    /// - Throws: ``TenantMigratorError/notACatalog(_:)`` when a schema of that name exists but is not a
    ///   tenant catalog (a tenant's schema, an application's schema): nothing is created in it.
    public func install(on connection: Connection) throws {
        if try requirePresence(on: connection) == CatalogSchema.currentVersion { return }
        try connection.transaction { connection in
            // Serialize installers; CREATE … IF NOT EXISTS alone races on the system catalogs.
            // On Citus the catalog stays a local schema on the coordinator: a distributed one would
            // make every FOR UPDATE and constraint check a trip to a worker.
            try connection.pipeline(
                [Statement("SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('tenant-migrate catalog'), pg_catalog.hashtext($1))", [schema])]
                    + (try connection.keepingNewSchemasLocal())
                    + [
                        Statement("CREATE SCHEMA IF NOT EXISTS \(id: schema)"),
                        Statement("""
                            CREATE TABLE IF NOT EXISTS \(table("catalog_info")) (
                                key text PRIMARY KEY,
                                value text NOT NULL
                            )
                            """),
                    ]
            )
            let found = try installedVersion(on: connection) ?? 0
            guard found <= CatalogSchema.currentVersion else {
                throw TenantMigratorError.catalogTooNew(catalog: schema, found: found, supported: CatalogSchema.currentVersion)
            }
            let upgrades = ((found + 1)..<(CatalogSchema.currentVersion + 1)).flatMap { CatalogSchema.upgrade(to: $0, catalog: self) }
            try connection.pipeline(upgrades.map { Statement($0) } + [
                Statement(
                    """
                    INSERT INTO \(table("catalog_info")) (key, value) VALUES ('catalog_version', $1) \
                    ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
                    """,
                    [String(CatalogSchema.currentVersion)]
                ),
            ])
        }
    }

    /// Checks the catalog's name and that the schema, if it exists, is a tenant catalog.
    ///
    /// - Returns: the installed catalog version, or nil when no schema of that name exists yet.
    /// - Throws: ``TenantMigratorError/invalidCatalogName(_:reason:)`` or ``TenantMigratorError/notACatalog(_:)``.
    @discardableResult
    public func requirePresence(on connection: Connection) throws -> Int? {
        try Self.validateName(schema)
        let schemaExists = try connection.execute(
            "SELECT count(*)::pg_catalog.int4 FROM pg_catalog.pg_namespace WHERE nspname = $1", [schema]
        ).first?.decode(Int.self, at: 0) == 1
        guard schemaExists else { return nil }
        guard let version = try installedVersion(on: connection) else { throw TenantMigratorError.notACatalog(schema) }
        return version
    }

    /// Whether the catalog exists (read-only commands never create it).
    public func isInstalled(on connection: Connection) throws -> Bool {
        try requirePresence(on: connection) != nil
    }

    /// A catalog name is a plain lowercase SQL identifier: a letter or `_`, then letters, digits
    /// or `_`, at most 63 characters, and not one of PostgreSQL's own schemas.
    public static func validateName(_ name: String) throws {
        let allowed = name.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 95 }
        guard !name.isEmpty, name.utf8.count <= 63, allowed, let first = name.utf8.first, !(48...57).contains(first) else {
            throw TenantMigratorError.invalidCatalogName(name, reason: "use 1-63 characters of a-z, 0-9 and _, not starting with a digit")
        }
        guard !name.hasPrefix("pg_"), name != "public", name != "information_schema" else {
            throw TenantMigratorError.invalidCatalogName(name, reason: "that schema belongs to PostgreSQL")
        }
    }

    /// The catalog's version, or nil when it is not installed.
    public func installedVersion(on connection: Connection) throws -> Int? {
        let exists = try connection.execute(
            "SELECT to_regclass(format('%I.catalog_info', $1::text)) IS NOT NULL", [schema]
        ).first?.decode(Bool.self, at: 0) ?? false
        guard exists else { return nil }
        let row = try connection.execute(
            "SELECT value FROM \(table("catalog_info")) WHERE key = 'catalog_version'"
        ).first
        return try row.flatMap { Int(try $0.decode(String.self, at: 0)) }
    }
}

/// The catalog's own DDL, one step per catalog version.
enum CatalogSchema {
    static let currentVersion = 2

    /// The statements that bring the catalog from `version - 1` to `version`, one statement each.
    static func upgrade(to version: Int, catalog: TenantCatalog) -> [SQL] {
        let tenants = catalog.table("tenants")
        let history = catalog.table("migration_history")
        switch version {
        case 1:
            return [
                """
                CREATE TABLE \(tenants) (
                    name text PRIMARY KEY,
                    schema_name text NOT NULL UNIQUE,
                    family text NOT NULL,
                    version text NOT NULL,
                    version_hash text NOT NULL,
                    state text NOT NULL DEFAULT 'ready' CHECK (state IN ('ready', 'failed')),
                    last_error text,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    updated_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                "CREATE INDEX ON \(tenants) (family, version)",
                """
                CREATE TABLE \(history) (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    tenant text NOT NULL,
                    family text NOT NULL,
                    operation text NOT NULL,
                    from_version text,
                    to_version text,
                    started_at timestamptz NOT NULL,
                    finished_at timestamptz NOT NULL DEFAULT clock_timestamp(),
                    outcome text NOT NULL CHECK (outcome IN ('succeeded', 'failed')),
                    error text,
                    sqlstate text,
                    statistics jsonb NOT NULL DEFAULT '{}'
                )
                """,
                "CREATE INDEX ON \(history) (tenant, id)",
            ]
        case 2:
            // Pins (TenantCatalog+Pins.swift). IF NOT EXISTS: a half-upgraded catalog upgrades again.
            return [
                """
                ALTER TABLE \(tenants) ADD COLUMN IF NOT EXISTS pinned_version text, \
                ADD COLUMN IF NOT EXISTS pinned_at timestamptz, ADD COLUMN IF NOT EXISTS pinned_reason text
                """,
            ]
        default:
            preconditionFailure("no catalog upgrade to version \(version)")
        }
    }
}
