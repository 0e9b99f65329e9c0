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

    /// Every change that drops data, over all steps.
    public var destructiveChanges: [DestructiveChange] { steps.flatMap(\.destructiveChanges) }

    /// The exact SQL of every step, for `plan`.
    public func describe(inSchema schema: String, quoting: some SQLQuoting) -> [(step: MigrationStep, statements: [String])] {
        steps.map { ($0, $0.describe(inSchema: schema, quoting: quoting)) }
    }

    /// Runs every step, in order, inside the caller's transaction.
    public func run(inSchema schema: String, on connection: Connection) throws -> StepStatistics {
        try steps.reduce(StepStatistics()) { total, step in total + (try step.run(inSchema: schema, on: connection)) }
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
    /// Swift code to run before and after the step (never set on fused steps).
    public var hooks: StepHooks?

    public init(versions: [ModelVersion], kind: Kind, hooks: StepHooks? = nil) {
        self.versions = versions
        self.kind = kind
        self.hooks = hooks
    }

    public var source: ModelVersion { versions.first! }
    public var destination: ModelVersion { versions.last! }

    /// Whether several adjacent steps were fused into this one.
    public var isFused: Bool { versions.count > 2 }

    public var destructiveChanges: [DestructiveChange] {
        switch kind {
        case let .inferred(changes): return changes.destructiveChanges
        case let .mapped(mapping): return mapping.destructiveChanges(from: source, to: destination)
        }
    }

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

    /// Runs the step inside the caller's transaction.
    public func run(inSchema schema: String, on connection: Connection) throws -> StepStatistics {
        let started = Date()
        var statistics: StepStatistics
        let previousLogger = connection.logger
        connection.logger[metadataKey: "step"] = "\(source.name) → \(destination.name)"
        defer { connection.logger = previousLogger }
        try hooks?.willMigrate?(connection, schema)
        switch kind {
        case let .inferred(changes):
            statistics = try changes.run(inSchema: schema, on: connection)
        case let .mapped(mapping):
            statistics = try mapping.run(from: source, to: destination, inSchema: schema, on: connection)
        }
        try hooks?.didMigrate?(connection, schema)
        statistics.milliseconds = Date().timeIntervalSince(started) * 1000
        return statistics
    }
}
