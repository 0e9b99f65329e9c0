/// A kind of object in a model version (Core Data's `NSEntityDescription`).
///
/// A root entity (no parent) gets a table. A sub-entity lives in its root's table, told apart by the
/// discriminator column `entity`. Attributes and relationships are kept sorted by name, so the order
/// in which a file declares them does not matter.
public struct Entity: Hashable, Sendable, Codable {
    /// The entity's name. Also the value of the discriminator column for its rows.
    public var name: String
    /// An explicit table name (root entities only), overriding the snake_case of ``name``.
    public var tableOverride: String?
    /// The name of the parent entity, for inheritance.
    public var parent: String?
    /// Whether the entity has no rows of its own, only through concrete sub-entities.
    public var isAbstract: Bool
    /// The entity's name in the previous version, when it was renamed. Not part of the stored shape.
    public var renamingIdentifier: String?
    /// The attributes this entity declares (not the inherited ones), sorted by name.
    public var attributes: [Attribute] { didSet { attributes.sort { $0.name < $1.name } } }
    /// The relationships this entity declares (not the inherited ones), sorted by name.
    public var relationships: [Relationship] { didSet { relationships.sort { $0.name < $1.name } } }
    /// Where the entity was declared, when it came from a file.
    public var location: SourceLocation?
    /// Conditions every row of the entity meets, in SQL over its columns (`price >= 0`): `CHECK`
    /// constraints on its table.
    public var checks: [String] = []
    /// Groups of properties (attributes and to-ones) whose values together are unique: one
    /// `UNIQUE` constraint over their columns each, in the order given.
    public var uniques: [[String]] = []
    /// Indexes beyond `indexed: true` on one property (`indexes:`).
    public var indexes: [EntityIndex] = []
    /// The primary key (`key:`, root entities only); nil for the standard `id bigint` identity.
    public var key: EntityKey?
    /// A comment on the entity's table (`COMMENT ON TABLE`; a root entity's only).
    public var comment: String?
    /// The table that stores this entity's rows: its root entity's table. Resolved when the entity
    /// becomes part of a ``ModelVersion``; until then, this entity's own table name.
    public internal(set) var tableName: String
    /// The hex SHA-256 of this entity's stored shape, including what it inherits (like Core Data's
    /// `entityVersionHash`). Computed when the entity becomes part of a ``ModelVersion``; empty before.
    public internal(set) var versionHash: String

    /// Creates an entity.
    public init(
        name: String,
        tableOverride: String? = nil,
        parent: String? = nil,
        isAbstract: Bool = false,
        renamingIdentifier: String? = nil,
        attributes: [Attribute] = [],
        relationships: [Relationship] = [],
        location: SourceLocation? = nil
    ) {
        self.name = name
        self.tableOverride = tableOverride
        self.parent = parent
        self.isAbstract = isAbstract
        self.renamingIdentifier = renamingIdentifier
        self.attributes = attributes.sorted { $0.name < $1.name }
        self.relationships = relationships.sorted { $0.name < $1.name }
        self.location = location
        self.tableName = tableOverride ?? name.snakeCased
        self.versionHash = ""
    }

    /// The declared attribute named `name`.
    public func attribute(named name: String) -> Attribute? {
        attributes.first { $0.name == name }
    }

    /// The declared relationship named `name`.
    public func relationship(named name: String) -> Relationship? {
        relationships.first { $0.name == name }
    }
}
