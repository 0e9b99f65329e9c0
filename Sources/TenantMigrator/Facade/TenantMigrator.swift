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
///     connectionString: ProcessInfo.processInfo.environment["DATABASE_URL"] ?? "",
///     familyDirectory: URL(fileURLWithPath: "Migrations/Recipes")
/// )
/// let acme = try await migrator.createTenant("acme")
/// ```
///
/// `TenantMigrator` is a `Sendable` value: share it freely. Its copies share one
/// ``ConnectionPool``, the only thing that opens its connections (see ``connectionPool``); call
/// ``shutdown()`` to close them before the app exits.
@dynamicMemberLookup
public struct TenantMigrator: Sendable {
    /// How to reach the database: a conninfo string, a `postgres://` URI, or "" for libpq's
    /// defaults (also "" when connections come from the app's factory).
    public let connectionString: String
    /// The model family whose tenants this migrator manages.
    public let family: ModelFamily
    /// Where tenants are recorded.
    public let catalog: TenantCatalog
    public let logger: Logger
    /// Custom mapping models and Swift policies, used instead of inference for their exact pair.
    public var mappings: [MappingModel] { didSet { planner = Self.planner(family, mappings, policies, logger) } }
    /// The policies and stage hooks (hooks run around their steps).
    public var policies: PolicyRegistry { didSet { planner = Self.planner(family, mappings, policies, logger) } }
    /// The planner for this family and its mappings, built once (and again when ``mappings`` or
    /// ``policies`` change).
    public private(set) var planner: MigrationPlanner
    /// How migrations run: lock timeout, attempts, backoff, archive, reconnection, observability.
    /// The tenant executor, the fleet and the service take it as it is.
    public var settings: MigrationSettings
    /// The connections of this migrator and its copies.
    public let connectionPool: ConnectionPool
    /// The tenants known to be current (nil when ``ConnectionPool/Configuration/cachesCurrentTenants`` is off).
    public let currentTenants: CurrentTenantCache?

    /// - Parameters:
    ///   - applicationName: the sessions' `application_name` (unless the connection string names one).
    ///   - pool: how many connections the migrator keeps, and for how long.
    public init(
        connectionString: String,
        family: ModelFamily,
        catalog: TenantCatalog = TenantCatalog(),
        mappings: [MappingModel] = [],
        policies: PolicyRegistry = PolicyRegistry(),
        lockTimeout: Duration = .seconds(5),
        maxAttempts: Int = 5,
        applicationName: String = "TenantMigrator",
        pool: ConnectionPool.Configuration = ConnectionPool.Configuration(),
        logger: Logger = Logger(label: "TenantMigrator")
    ) {
        let session = MigratorSession(connectionString: connectionString, applicationName: applicationName, reconnectTimeout: .zero, logger: logger)
        self.init(session: session, family: family, catalog: catalog, mappings: mappings, policies: policies,
                  lockTimeout: lockTimeout, maxAttempts: maxAttempts, pool: pool)
    }

    /// A migrator whose connections come from the app's own `factory` (its credentials, TLS or
    /// proxy setup). Each new connection gets the migrator's search path before its first use;
    /// the factory chooses everything else, `application_name` included.
    public init(
        factory: @escaping MigratorSession.Factory,
        family: ModelFamily,
        catalog: TenantCatalog = TenantCatalog(),
        mappings: [MappingModel] = [],
        policies: PolicyRegistry = PolicyRegistry(),
        lockTimeout: Duration = .seconds(5),
        maxAttempts: Int = 5,
        pool: ConnectionPool.Configuration = ConnectionPool.Configuration(),
        logger: Logger = Logger(label: "TenantMigrator")
    ) {
        self.init(session: MigratorSession(factory: factory, reconnectTimeout: .zero, logger: logger), family: family, catalog: catalog,
                  mappings: mappings, policies: policies, lockTimeout: lockTimeout, maxAttempts: maxAttempts, pool: pool)
    }

    private init(
        session: MigratorSession, family: ModelFamily, catalog: TenantCatalog, mappings: [MappingModel], policies: PolicyRegistry,
        lockTimeout: Duration, maxAttempts: Int, pool: ConnectionPool.Configuration
    ) {
        self.connectionString = session.connectionString
        self.family = family
        self.catalog = catalog
        self.mappings = mappings
        self.policies = policies
        self.planner = Self.planner(family, mappings, policies, session.logger)
        self.settings = MigrationSettings(lockTimeout: lockTimeout, maxAttempts: maxAttempts)
        self.logger = session.logger
        self.connectionPool = ConnectionPool(session: session, configuration: pool)
        self.currentTenants = pool.cachesCurrentTenants ? CurrentTenantCache(catalog: catalog, pool: connectionPool) : nil
    }

    private static func planner(_ family: ModelFamily, _ mappings: [MappingModel], _ policies: PolicyRegistry, _ logger: Logger) -> MigrationPlanner {
        MigrationPlanner(family: family, mappings: mappings, hooks: policies, logger: logger)
    }

    /// Each setting of ``settings`` as a property of the migrator: `migrator.lockTimeout = .seconds(2)`.
    public subscript<Value>(dynamicMember setting: WritableKeyPath<MigrationSettings, Value>) -> Value {
        get { settings[keyPath: setting] }
        set { settings[keyPath: setting] = newValue }
    }

    /// Create, drop, adopt and verify operations for this family and catalog.
    public var lifecycle: TenantLifecycle { TenantLifecycle(catalog: catalog, family: family) }

    /// Closes the migrator's connections (those in use when they come back) and stops caching.
    /// Later calls fail. Shared by every copy of this migrator.
    public func shutdown() async {
        await currentTenants?.shutdown()
        await connectionPool.shutdown()
    }

    /// Runs `body` on a pooled connection with the catalog installed. Keep session state
    /// transaction-local (`SET LOCAL`): the connection serves other calls afterwards.
    public func withConnection<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await withConnection(catalog: catalog, body)
    }

    /// ``withConnection(_:)`` with `catalog` installed (this migrator's, trusting another owner).
    func withConnection<T: Sendable>(catalog: TenantCatalog, _ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        let pool = connectionPool
        return try await TenantMigratorError.reporting {
            try await pool.withConnection { connection in
                try catalog.install(on: connection)
                return try body(connection)
            }
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
    /// With `mappingsDirectory`, the mapping models there replace the family's own for the pairs
    /// they map (`Migrations/Recipes/Mappings/Declarative`: Recipes v2 → v3 without Swift).
    public init(
        connectionString: String,
        familyDirectory: URL,
        mappingsDirectory: URL? = nil,
        policies: PolicyRegistry = PolicyRegistry(),
        catalog: TenantCatalog = TenantCatalog(),
        lockTimeout: Duration = .seconds(5),
        maxAttempts: Int = 5,
        applicationName: String = "TenantMigrator",
        pool: ConnectionPool.Configuration = ConnectionPool.Configuration(),
        logger: Logger = Logger(label: "TenantMigrator")
    ) throws {
        let family = try ModelFamily.load(from: familyDirectory)
        var mappings = try MappingModel.loadAll(for: family, policies: policies)
        if let mappingsDirectory {
            mappings = MappingModel.replacing(mappings, with: try MappingModel.loadAll(in: mappingsDirectory, for: family, policies: policies))
        }
        self.init(connectionString: connectionString, family: family, catalog: catalog, mappings: mappings, policies: policies,
                  lockTimeout: lockTimeout, maxAttempts: maxAttempts, applicationName: applicationName, pool: pool, logger: logger)
    }
}
