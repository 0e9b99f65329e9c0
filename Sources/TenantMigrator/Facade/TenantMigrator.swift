import EntityModel
import Foundation
import LibPQ
import Logging
import MigrationEngine

/// The entry point for server apps and for the `tenant-migrate` commands: configure it once, then
/// create, inspect and migrate tenants.
///
/// ```swift
/// let migrator = try TenantMigrator(
///     connectionString: Environment.get("DATABASE_URL") ?? "",
///     family: ModelFamily.load(from: URL(fileURLWithPath: "Migrations/Recipes"))
/// )
/// try await migrator.createTenant("acme")
/// ```
///
/// `TenantMigrator` is a `Sendable` value: share it freely. Each call opens the connections it
/// needs and closes them when done.
public struct TenantMigrator: Sendable {
    /// How to reach the database: a conninfo string, a `postgres://` URI, or "" for libpq's defaults.
    public let connectionString: String
    /// The model family whose tenants this migrator manages.
    public let family: ModelFamily
    /// Where tenants are recorded.
    public let catalog: TenantCatalog
    public let logger: Logger
    /// Custom mapping models and Swift policies, used instead of inference for their exact pair.
    public var mappings: [any MigrationMapping]
    /// The policies and stage hooks (hooks run around their steps).
    public var policies: PolicyRegistry = PolicyRegistry()
    /// How long a migration statement may wait for a lock before the attempt is retried.
    public var lockTimeout: Duration
    /// Attempts per tenant before a lock timeout becomes a failure.
    public var maxAttempts: Int
    /// Migrate tenants whose recorded version's model file changed since they reached it (see
    /// ``TenantMigrationRunner/acceptModelChange``). Off by default: such tenants are refused.
    public var acceptModelChange = false
    /// How long a fleet run keeps reconnecting after losing a connection (a server restart).
    public var reconnectTimeout: Duration = .seconds(60)
    /// Archive what each step destroys or overwrites, so rollbacks give it back (the default).
    /// Off (`--no-archive`, for huge tables where the copy costs too much), such plans need
    /// `allowDestructive`.
    public var archives = true
    /// Where metrics and spans go: the app's bootstrapped `MetricsSystem` and `InstrumentationSystem`
    /// by default (no-ops until bootstrapped). See ``MigratorMetrics`` and ``MigratorTracing``.
    public var observability = Observability()

    public init(
        connectionString: String,
        family: ModelFamily,
        catalog: TenantCatalog = TenantCatalog(),
        mappings: [any MigrationMapping] = [],
        lockTimeout: Duration = .seconds(5),
        maxAttempts: Int = 5,
        logger: Logger = Logger(label: "TenantMigrator")
    ) {
        self.connectionString = connectionString
        self.family = family
        self.catalog = catalog
        self.mappings = mappings
        self.lockTimeout = lockTimeout
        self.maxAttempts = maxAttempts
        self.logger = logger
    }

    /// Create, drop, adopt and verify operations for this family and catalog.
    public var lifecycle: TenantLifecycle { TenantLifecycle(catalog: catalog, family: family) }

    /// Opens a connection with the catalog installed, runs `body` on it, and closes it.
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let connection = try await MigratorSession(connectionString: connectionString, reconnectTimeout: .zero, logger: logger).connect()
        let catalog = self.catalog
        return try await connection.withConnection { connection in
            try catalog.install(on: connection)
            return try body(connection)
        }
    }

    /// Opens a connection for read-only work on the catalog, which is never created here: `body`
    /// runs only when the catalog exists, and `absent` is returned when it does not.
    func withExistingCatalog<T: Sendable>(
        absent: @escaping @Sendable () throws -> T, _ body: @escaping @Sendable (Connection) throws -> T
    ) async throws -> T {
        let catalog = self.catalog
        return try await withPlainConnection { connection in
            try catalog.isInstalled(on: connection) ? try body(connection) : try absent()
        }
    }
}

extension TenantMigrator {
    /// Loads the family in `familyDirectory` (`Migrations/<Family>`) and its mapping models, whose
    /// policies must be registered in `policies`; every mistake in every file is reported at once.
    public init(
        connectionString: String,
        familyDirectory: URL,
        policies: PolicyRegistry = PolicyRegistry(),
        catalog: TenantCatalog = TenantCatalog(),
        logger: Logger = Logger(label: "TenantMigrator")
    ) throws {
        let family = try ModelFamily.load(from: familyDirectory)
        let mappings = try MappingModel.loadAll(for: family, policies: policies)
        self.init(connectionString: connectionString, family: family, catalog: catalog, mappings: mappings, logger: logger)
        self.policies = policies
    }
}
