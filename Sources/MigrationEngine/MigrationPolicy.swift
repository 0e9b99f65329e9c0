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
    func begin(_ context: PolicyContext) throws
    func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws
    func endInstanceCreation(_ context: PolicyContext) throws
    func createRelationships(for source: SourceRow, in context: PolicyContext) throws
    func endRelationshipCreation(_ context: PolicyContext) throws
    func validate(_ context: PolicyContext) throws
    func end(_ context: PolicyContext) throws
}

extension MigrationPolicy {
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
