import EntityModel
import Foundation
import LibPQ

/// Which way a plan moves along the family's ordered versions.
public enum MigrationDirection: String, Sendable, Codable {
    case up, down, none
}

/// The ordered steps that take a tenant from one version to another. Planning touches no
/// database; a plan that exists can run.
public struct MigrationPlan: Sendable {
    public let family: String
    public let source: ModelVersion
    public let destination: ModelVersion
    public let direction: MigrationDirection
    /// The steps, after fusion of consecutive inferred steps.
    public let steps: [MigrationStep]

    /// True when the tenant is already at the destination.
    public var isEmpty: Bool { steps.isEmpty }

    /// Every change that drops data whatever the tenant holds, over all steps: running the plan
    /// needs consent up front (`--allow-destructive`).
    public var destructiveChanges: [DestructiveChange] { steps.flatMap(\.destructiveChanges) }

    /// Losses that depend on the tenant's data (rows a predicate selects), over all steps: each
    /// step counts them when it runs and fails without consent if there are any.
    public var dataDependentLosses: [DestructiveChange] { steps.flatMap(\.account.dataDependentLosses) }

    /// The exact SQL of every step, for `plan`.
    public func describe(inSchema schema: String, quoting: some SQLQuoting) -> [(step: MigrationStep, statements: [String])] {
        steps.map { ($0, $0.describe(inSchema: schema, quoting: quoting)) }
    }

    /// Runs every step, in order, inside the caller's transaction. Without `allowDestructive`, a
    /// data-dependent loss that finds rows fails the step (``UnconsentedLoss``). With `archives`
    /// (the default), what a step destroys goes to the tenant's archive first, and a step that
    /// reverses an earlier one restores it (see ``StepArchive``).
    public func run(inSchema schema: String, on connection: Connection, allowDestructive: Bool = false, archives: Bool = true) throws -> StepStatistics {
        try steps.reduce(StepStatistics()) { total, step in
            total + (try step.run(inSchema: schema, on: connection, allowDestructive: allowDestructive, archives: archives))
        }
    }
}

/// One step of a plan: a custom mapping between two adjacent versions, or an inferred change
/// set covering one or more adjacent versions (fused).
public struct MigrationStep: Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        case inferred(InferredChanges)
        case mapped(any MigrationMapping)
    }

    /// The versions this step walks through, first to last (two for a single step, more when fused).
    public let versions: [ModelVersion]
    public let kind: Kind
    /// Swift code registered for this family's pair, run after the step's schema changes and
    /// after its validation (never set on fused steps: a hooked pair is not fused).
    public var hooks: StepHooks?

    public init(versions: [ModelVersion], kind: Kind, hooks: StepHooks? = nil) {
        self.versions = versions
        self.kind = kind
        self.hooks = hooks
    }

    public var source: ModelVersion { versions.first! }
    public var destination: ModelVersion { versions.last! }

    /// Whether the step runs Swift policies (which may archive values of their own).
    var isPolicyStep: Bool {
        guard case let .mapped(mapping) = kind, let model = mapping as? MappingModel else { return false }
        return model.entityMappings.contains { $0.policy != nil }
    }

    /// Whether several adjacent steps were fused into this one.
    public var isFused: Bool { versions.count > 2 }

    /// Where every source column, link and row set goes in this step.
    public var account: StepAccount {
        switch kind {
        case let .inferred(changes): return changes.account
        case let .mapped(mapping): return mapping.account(from: source, to: destination)
        }
    }

    /// What this step destroys: the account's destroyed entries.
    public var destructiveChanges: [DestructiveChange] { account.destructiveChanges }

    public var description: String {
        let path = versions.map(\.name).joined(separator: " → ")
        switch kind {
        case .inferred: return "\(source.name) → \(destination.name): inferred\(isFused ? " (fused: \(path))" : "")"
        case let .mapped(mapping): return "\(source.name) → \(destination.name): mapped by \(mapping.origin)"
        }
    }

    /// The SQL this step runs.
    public func describe(inSchema schema: String, quoting: some SQLQuoting) -> [String] {
        switch kind {
        case let .inferred(changes): return changes.statements(inSchema: schema, quoting: quoting)
        case let .mapped(mapping): return mapping.describe(from: source, to: destination, inSchema: schema, quoting: quoting)
        }
    }

    /// Runs the step inside the caller's transaction. Without `allowDestructive`, a data-dependent
    /// loss that finds rows fails the step (``UnconsentedLoss``). With `archives`, what the step
    /// destroys or overwrites is archived first, and what its reverse archived is restored after
    /// its normal work, before its `didMigrate` hook.
    public func run(inSchema schema: String, on connection: Connection, allowDestructive: Bool = false, archives: Bool = true) throws -> StepStatistics {
        let started = Date()
        var statistics: StepStatistics
        let previousLogger = connection.logger
        connection.logger[metadataKey: "step"] = "\(source.name) → \(destination.name)"
        defer { connection.logger = previousLogger }
        let willMigrate = hooks?.willMigrate.map { hook in { try self.runHook("willMigrate", hook, schema: schema, on: connection) } }
        let archive = archives ? StepArchive(step: self, schema: schema, connection: connection) : nil
        let archiving = archive.flatMap { archive in archive.archivesSomething || isPolicyStep ? archive : nil }
        try archiving?.beforeStep()
        let afterSchemaChanges: (() throws -> Void)? = archiving.map { archive in { try archive.afterSchemaChanges(); try willMigrate?() } } ?? willMigrate
        switch kind {
        case let .inferred(changes):
            statistics = try changes.run(inSchema: schema, on: connection, afterSchemaChanges: afterSchemaChanges)
        case let .mapped(mapping):
            statistics = try mapping.run(from: source, to: destination, inSchema: schema, on: connection,
                                         allowDestructive: allowDestructive, archive: archiving, afterSchemaChanges: afterSchemaChanges)
        }
        try archiving?.afterStep()
        if let archive { statistics.rowsAffected += try archive.restore() }
        if let didMigrate = hooks?.didMigrate { try runHook("didMigrate", didMigrate, schema: schema, on: connection) }
        statistics.milliseconds = Date().timeIntervalSince(started) * 1000
        return statistics
    }

    private func runHook(_ name: String, _ hook: @Sendable (PolicyConnection, String) throws -> Void, schema: String, on connection: Connection) throws {
        do {
            try hook(connection, schema)
        } catch {
            throw StepHookError(hook: name, step: "\(source.name) → \(destination.name)", underlying: error)
        }
    }
}
