/// A reference from one entity to another (Core Data's `NSRelationshipDescription`).
///
/// How a relationship is stored depends on its inverse: a to-one holds a foreign-key column; a
/// to-many whose inverse is to-one is stored by that inverse; a to-many whose inverse is also to-many,
/// or which has no inverse, is stored in a join table. See `docs/ModelFormat.md`.
public struct Relationship: Hashable, Sendable, Codable {
    /// The relationship's name, unique among the entity's properties including inherited ones.
    public var name: String
    /// The name of the entity at the other end.
    public var destination: String
    /// Whether the relationship holds any number of objects rather than at most one.
    public var isToMany: Bool
    /// The name of the relationship on ``destination`` that points back, if any.
    public var inverse: String?
    /// What happens to the destination when the source object is deleted. Defaults to `nullify`.
    public var deleteRule: DeleteRule
    /// Whether the relationship may be empty. Defaults to `true`.
    public var isOptional: Bool
    /// The least number of objects a to-many holds (checked by the migration engine, not by DDL).
    public var minCount: Int?
    /// The greatest number of objects a to-many holds (checked by the migration engine, not by DDL).
    public var maxCount: Int?
    /// The relationship's name in the previous version, when it was renamed. Not part of the stored shape.
    public var renamingIdentifier: String?
    /// An explicit foreign-key column name for a to-one, overriding `<snake_name>_id`.
    public var columnOverride: String?
    /// Where the relationship was declared, when it came from a file.
    public var location: SourceLocation?
    /// For the to-one that holds the key: the foreign key's `ON UPDATE` action (`cascade` is
    /// `CASCADE`, `nullify` `SET NULL`, `deny` `RESTRICT`); nil for `NO ACTION`.
    public var onUpdate: DeleteRule?
    /// For the to-one that holds the key: the foreign key is `DEFERRABLE INITIALLY DEFERRED`.
    public var isDeferred = false
    /// For the to-one that holds the key: whether its column gets an index (not when unique). Defaults to `true`.
    public var isIndexed = true
    /// For the to-many that owns a join table: the `ON DELETE` of the join table's two foreign keys
    /// where it is not `CASCADE` (`noAction` for Hibernate's join tables, whose links the
    /// application deletes); nil for `CASCADE`.
    public var joinOnDelete: DeleteRule?
    /// For the to-many that owns a join table: its name where it is not the derived
    /// `<snake entity>_<snake relationship>` (Prisma's `_CategoryToPost`).
    public var joinTableOverride: String?
    /// For the to-many that owns a join table: its two column names, the owner's then the
    /// destination's, where they are not the derived `<snake entity>_id` ones (Prisma's `A`, `B`).
    public var joinColumnsOverride: [String]?
    /// For the to-many that owns a join table: how it keeps pairs unique where it is not by a
    /// primary key (``JoinKey/uniqueIndex``, as Prisma's implicit tables); nil for the primary key.
    public var joinKey: JoinKey?
    /// For the to-many that owns a join table: the `ON UPDATE` of its two foreign keys (`cascade`,
    /// as Prisma writes them); nil for `NO ACTION`.
    public var joinOnUpdate: DeleteRule?

    /// The options of a join table that only its owning to-many may give, by their keys in a
    /// version file: `joinTable`, `joinColumns`, `joinKey`, `joinOnUpdate`.
    public var joinTableOptions: [String] {
        [joinTableOverride.map { _ in "joinTable" }, joinColumnsOverride.map { _ in "joinColumns" },
         joinKey.map { _ in "joinKey" }, joinOnUpdate.map { _ in "joinOnUpdate" }].compactMap { $0 }
    }

    /// Creates a relationship.
    public init(
        name: String,
        destination: String,
        isToMany: Bool = false,
        inverse: String? = nil,
        deleteRule: DeleteRule = .nullify,
        isOptional: Bool = true,
        minCount: Int? = nil,
        maxCount: Int? = nil,
        renamingIdentifier: String? = nil,
        columnOverride: String? = nil,
        location: SourceLocation? = nil
    ) {
        self.name = name
        self.destination = destination
        self.isToMany = isToMany
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.isOptional = isOptional
        self.minCount = minCount
        self.maxCount = maxCount
        self.renamingIdentifier = renamingIdentifier
        self.columnOverride = columnOverride
        self.location = location
    }

    /// The foreign-key column a to-one is stored in (when it holds the key): ``columnOverride``, or
    /// `<snake_case name>_id`.
    public var foreignKeyColumnName: String { columnOverride ?? name.snakeCased + "_id" }
}
