import LibPQ

/// The connection a policy or hook runs SQL on: the tenant's migration transaction.
public typealias PolicyConnection = Connection

/// Swift code that migrates the rows of one entity mapping, in the stages of Core Data's
/// `NSEntityMigrationPolicy`:
///
/// 1. ``begin(_:)``
/// 2. ``createDestinationInstances(for:in:)``, once per source row (streamed in batches)
/// 3. ``endInstanceCreation(_:)``
/// 4. ``createRelationships(for:in:)``, once per source row, after every mapping created its rows
/// 5. ``endRelationshipCreation(_:)``
/// 6. ``validate(_:)``, once the destination model's constraints are in place
/// 7. ``end(_:)``
///
/// Every stage has a default that does nothing, so a policy implements only what it needs (when
/// ``createRelationships(for:in:)`` is the default, the runner skips that pass's remaining rows;
/// a policy that wraps another and forwards to its default should implement its own). A policy
/// that throws fails its tenant's migration, which is rolled back; the error names the tenant, the
/// mapping and the source row.
public protocol MigrationPolicy: Sendable {
    /// The source attributes and relationships (to-one or to-many) of the mapping's source entity
    /// whose values this policy keeps in another form: it reads them and writes what it computes.
    /// The step's account calls them transformed; a value the step drops that no mapping or
    /// policy declares is accounted destroyed, and needs consent. Declared to-many relationships
    /// can be read with ``SourceRow/related(_:)``.
    var transforms: [String] { get }
    /// What this policy cannot keep, listed in the plan as destructive.
    var loses: [PolicyLoss] { get }
    /// What it reads besides its source row, which decides how its step runs online: row-local
    /// by default, checked as it runs (``PolicyLocality``).
    var locality: PolicyLocality { get }

    func begin(_ context: PolicyContext) throws
    func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws
    func endInstanceCreation(_ context: PolicyContext) throws
    func createRelationships(for source: SourceRow, in context: PolicyContext) throws
    func endRelationshipCreation(_ context: PolicyContext) throws
    func validate(_ context: PolicyContext) throws
    func end(_ context: PolicyContext) throws
}

extension MigrationPolicy {
    public var transforms: [String] { [] }
    public var loses: [PolicyLoss] { [] }
    public var locality: PolicyLocality { .rowLocal() }
    public func begin(_ context: PolicyContext) throws {}
    public func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {}
    public func endInstanceCreation(_ context: PolicyContext) throws {}
    /// Does nothing; the runner notices and skips the rest of this pass's rows.
    public func createRelationships(for source: SourceRow, in context: PolicyContext) throws {
        context.relationshipPassIsDefault = true
    }
    public func endRelationshipCreation(_ context: PolicyContext) throws {}
    public func validate(_ context: PolicyContext) throws {}
    public func end(_ context: PolicyContext) throws {}
}

/// A policy failed on a source row.
public struct PolicyError: Error, Sendable, CustomStringConvertible {
    public let mapping: String
    public let policy: String
    public let stage: String
    /// The id of the source row being migrated, when the failure was about one row.
    public let sourceRowID: Int64?
    public let underlying: String
    /// The SQLSTATE, when the policy failed on a server error.
    public var sqlState: SQLState? = nil

    public var description: String {
        "mapping \(mapping) (policy \(policy)) failed in \(stage)\(sourceRowID.map { " on source row id \($0)" } ?? ""): \(underlying)"
    }
}

/// Values a policy or entity mapping cannot keep (`loses:`): an attribute of the mapping's
/// source entity, in the rows a predicate selects, and why.
public struct PolicyLoss: Sendable, Hashable {
    /// The source attribute whose values are lost, nil for the rows as a whole.
    public var attribute: String?
    /// An SQL predicate over the source row (`source.attribute` key paths, `{schema}`,
    /// `{source:Entity}`), nil for every row.
    public var rows: String?
    /// Why, in a plain sentence.
    public var reason: String

    public init(attribute: String? = nil, rows: String? = nil, reason: String) {
        self.attribute = attribute
        self.rows = rows
        self.reason = reason
    }
}
