import EntityModel

/// A custom migration between two versions in one direction, read from a YAML file under
/// `Migrations/<Family>/Mappings/` (Core Data's mapping model). See docs/MappingModels.md.
///
/// Its entity mappings run in file order. Each maps rows of a source entity (optionally filtered)
/// to a destination entity with SQL value expressions, relationship mappings and, or instead, a
/// Swift ``MigrationPolicy``. Entities the file does not mention follow the inferred rules.
public struct MappingModel: Sendable {
    /// The file it was read from.
    public let file: String
    public let sourceVersion: String
    public let destinationVersion: String
    /// The entity mappings, in order of execution.
    public let entityMappings: [EntityMapping]
    /// What this mapping cannot carry over (for example, which Entrée was Meat and which Fish),
    /// reported as a destructive change.
    public let loses: [String]
    /// Which way the mapping crosses its pair: `.up` when the source version is the older one.
    public let direction: MigrationDirection
    /// The policies and hooks the mapping's entity mappings name.
    public let policies: PolicyRegistry

    /// Whether the source version is the older one (an up step).
    @available(*, deprecated, renamed: "direction")
    public var ascending: Bool { direction == .up }

    public func entityMapping(named name: String) -> EntityMapping? {
        entityMappings.first { $0.name == name }
    }
}

/// One entity mapping: rows of `source` become rows of `destination`.
public struct EntityMapping: Sendable, Hashable {
    /// The mapping's name, unique in its file; relationship mappings refer to it.
    public let name: String
    /// The source entity (in the source version).
    public let source: String
    /// The destination entity (in the destination version).
    public let destination: String
    /// A SQL predicate over the source row; only matching rows are mapped.
    public let filter: String?
    /// Destination attribute → SQL value expression over the source row, in file order.
    public let attributes: [AttributeExpression]
    /// Destination relationships and the mappings whose destination rows they point at.
    public let relationships: [RelationshipMapping]
    /// The name of a registered Swift ``MigrationPolicy`` that creates or changes rows.
    public let policy: String?
    /// What this mapping cannot keep (`loses:`), listed in the plan as destructive.
    public var loses: [PolicyLoss] = []
    /// Where the mapping starts in its file.
    public let location: SourceLocation?
    /// Where the filter is in the file.
    public var filterLocation: SourceLocation? = nil
    /// `distinct:` (and `orderBy:`): one destination row per distinct key of the source rows,
    /// instead of one per source row.
    public var distinct: DistinctKey? = nil

    /// One destination row per distinct, non-NULL value of `key` over the selected source rows,
    /// its attributes and relationships computed from the key's **first row**: the first in
    /// `orderBy` order, ties (and no `orderBy`) by source id. Rows whose key is NULL make none.
    /// Destination ids follow the order of the keys' first rows. A relationship mapping that names
    /// the mapping links each source row to the row made for its key.
    public struct DistinctKey: Sendable, Hashable {
        /// A SQL expression over the source row, such as `lower(btrim(source.status))`.
        public let key: String
        /// A SQL `ORDER BY` list over the source row, such as `source.createdAt DESC`; nil: by id.
        public let orderBy: String?
        public let location: SourceLocation?
        public let orderByLocation: SourceLocation?
    }

    /// A destination attribute's value expression.
    public struct AttributeExpression: Sendable, Hashable {
        public let attribute: String
        public let expression: String
        public let location: SourceLocation?
    }
}

/// Sets a destination relationship from the rows another mapping created: Core Data's
/// `destinationInstancesForEntityMappingNamed:sourceInstances:`.
public struct RelationshipMapping: Sendable, Hashable {
    /// The destination relationship (to-one).
    public let relationship: String
    /// The mappings whose destination rows may be the target, in order of preference.
    public let mappings: [String]
    /// The source key path whose row was mapped, such as `source.recipe`, or `source` itself. For
    /// a distinct mapping, the row whose key is looked up.
    public let from: String
    public let location: SourceLocation?
}

/// The seam custom mappings once had; a mapping model is the one kind of custom mapping.
@available(*, deprecated, renamed: "MappingModel")
public typealias MigrationMapping = MappingModel
