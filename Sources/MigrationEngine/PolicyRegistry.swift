/// The Swift migration policies and stage hooks an application provides, by name.
///
/// Both the `tenant-migrate` runner and server apps fill one and hand it to the migrator:
///
/// ```swift
/// var registry = PolicyRegistry()
/// registry.register("RecipeIngredientToIngredientAndUnitOfMeasure") { RecipeIngredientPolicy() }
/// registry.registerHooks(from: "v2", to: "v3", StepHooks(didMigrate: { connection, schema in … }))
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

    /// Registers stage hooks that run before and after the step from `source` to `destination`.
    public mutating func registerHooks(from source: String, to destination: String, _ stepHooks: StepHooks) {
        hooks[source + "\u{0}" + destination] = stepHooks
    }

    /// Whether a policy is registered under `name`.
    public func contains(_ name: String) -> Bool { factories[name] != nil }

    /// The registered policy names, sorted.
    public var names: [String] { factories.keys.sorted() }

    /// A new instance of the policy `name`.
    public func makePolicy(named name: String) -> (any MigrationPolicy)? { factories[name]?() }

    /// The hooks of the step from `source` to `destination`, if any.
    public func hooks(from source: String, to destination: String) -> StepHooks? { hooks[source + "\u{0}" + destination] }

    /// Every registered hook pair.
    var hookedPairs: [(String, String)] {
        hooks.keys.map { key in let parts = key.split(separator: "\u{0}").map(String.init); return (parts[0], parts[1]) }
    }
}

/// Swift code that runs before and after one step, inside the tenant's transaction (SwiftData's
/// willMigrate / didMigrate). Each closure gets the connection and the tenant's schema.
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
