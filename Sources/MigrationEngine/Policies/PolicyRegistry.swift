import LibPQ

/// The Swift migration policies and stage hooks an application provides, by name.
///
/// Both the `tenant-migrate` runner and server apps fill one and hand it to the migrator:
///
/// ```swift
/// var registry = PolicyRegistry()
/// registry.register("RecipeIngredientToIngredientAndUnitOfMeasure") { RecipeIngredientPolicy() }
/// registry.registerHooks(family: "Recipes", from: "v2", to: "v3", StepHooks(didMigrate: { connection, schema in … }))
/// ```
/// A mapping model that names a policy missing from the registry fails to load, before any tenant
/// is touched.
public struct PolicyRegistry: Sendable {
    private var factories: [String: @Sendable () -> any MigrationPolicy] = [:]
    private var hooks: [String: StepHooks] = [:]

    public init() {}

    /// Registers a policy under `name`; `make` creates a fresh instance for each tenant's step.
    public mutating func register(_ name: String, _ make: @escaping @Sendable () -> any MigrationPolicy) {
        factories[name] = make
    }

    /// Registers stage hooks for the step from `source` to `destination` of `family` (mapped or
    /// inferred): `willMigrate` runs after the step's schema changes and before its data moves,
    /// `didMigrate` after its validation. Other families and other pairs do not run them.
    public mutating func registerHooks(family: String, from source: String, to destination: String, _ stepHooks: StepHooks) {
        hooks[Self.hookKey(family, source, destination)] = stepHooks
    }

    private static func hookKey(_ family: String, _ source: String, _ destination: String) -> String {
        family + "\u{0}" + source + "\u{0}" + destination
    }

    /// Whether a policy is registered under `name`.
    public func contains(_ name: String) -> Bool { factories[name] != nil }

    /// The registered policy names, sorted.
    public var names: [String] { factories.keys.sorted() }

    /// A new instance of the policy `name`.
    public func makePolicy(named name: String) -> (any MigrationPolicy)? { factories[name]?() }

    /// The hooks of `family`'s step from `source` to `destination`, if any.
    public func hooks(family: String, from source: String, to destination: String) -> StepHooks? {
        hooks[Self.hookKey(family, source, destination)]
    }
}

/// Swift code that runs around one step, inside the tenant's transaction (SwiftData's
/// willMigrate / didMigrate): `willMigrate` once the step's new tables and columns exist and
/// before any data moves, `didMigrate` after its validation. Each closure gets the connection and
/// the tenant's schema; an error fails the tenant's migration as a ``StepHookError`` naming the hook.
public struct StepHooks: Sendable {
    public var willMigrate: (@Sendable (PolicyConnection, String) throws -> Void)?
    public var didMigrate: (@Sendable (PolicyConnection, String) throws -> Void)?

    public init(
        willMigrate: (@Sendable (PolicyConnection, String) throws -> Void)? = nil,
        didMigrate: (@Sendable (PolicyConnection, String) throws -> Void)? = nil
    ) {
        self.willMigrate = willMigrate
        self.didMigrate = didMigrate
    }
}

/// A stage hook failed; the tenant's migration is rolled back.
public struct StepHookError: Error, Sendable, CustomStringConvertible {
    /// `willMigrate` or `didMigrate`.
    public let hook: String
    /// `v1 → v2`.
    public let step: String
    public let underlying: any Error

    public var description: String { "\(hook) hook of step \(step) failed: \(underlying)" }
    /// The SQLSTATE, when the hook failed on a server error.
    public var sqlState: SQLState? {
        (underlying as? PQError)?.sqlState ?? (underlying as? UntrustedExpression)?.sqlState ?? (underlying as? UnjudgedPolicyStatement)?.sqlState
    }
}
