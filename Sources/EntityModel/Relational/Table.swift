/// One table of a ``RelationalSchema``.
public struct Table: Hashable, Sendable, Codable {
    /// Why a table exists.
    public enum Origin: Hashable, Sendable, Codable {
        /// The table of a root entity and all its sub-entities.
        case entity(String)
        /// The join table of a to-many relationship (declared by `entity`) whose inverse is to-many
        /// or missing. For a pair of inverse to-manys, `entity` and `relationship` name the owning
        /// side: the one whose `(entity, relationship)` sorts first.
        case joinTable(entity: String, relationship: String)
    }

    /// The table's name (unqualified).
    public var name: String
    /// Why the table exists.
    public var origin: Origin
    /// The columns, in creation order: `id`, the discriminator, then properties.
    public var columns: [Column]
    /// The primary key: the columns that identify a row. Where ``keyIsUniqueIndex`` is set, the
    /// table has no `PRIMARY KEY` constraint: these columns are `NOT NULL` and the unique index of
    /// ``indexes`` with the key's name covers them (a join table with `joinKey: uniqueIndex`).
    public var primaryKey: PrimaryKey
    /// Whether the key is a unique index rather than a `PRIMARY KEY` constraint (Prisma's implicit
    /// many-to-many tables); nil for a primary key.
    public var keyIsUniqueIndex: Bool?
    /// The foreign keys, sorted by name.
    public var foreignKeys: [ForeignKey]
    /// The unique constraints, sorted by name.
    public var uniqueConstraints: [UniqueConstraint]
    /// The check constraints, sorted by name.
    public var checkConstraints: [CheckConstraint]
    /// The indexes, sorted by name.
    public var indexes: [Index]
    /// The table's comment (its root entity's `comment:`).
    public var comment: String?

    /// Creates a table; constraints and indexes are sorted by name, columns keep their order.
    public init(
        name: String,
        origin: Origin,
        columns: [Column],
        primaryKey: PrimaryKey,
        foreignKeys: [ForeignKey] = [],
        uniqueConstraints: [UniqueConstraint] = [],
        checkConstraints: [CheckConstraint] = [],
        indexes: [Index] = []
    ) {
        self.name = name
        self.origin = origin
        self.columns = columns
        self.primaryKey = primaryKey
        self.foreignKeys = foreignKeys.sorted { $0.name < $1.name }
        self.uniqueConstraints = uniqueConstraints.sorted { $0.name < $1.name }
        self.checkConstraints = checkConstraints.sorted { $0.name < $1.name }
        self.indexes = indexes.sorted { $0.name < $1.name }
    }

    /// The column named `name`.
    public func column(named name: String) -> Column? {
        columns.first { $0.name == name }
    }

    /// The column with origin `origin`.
    public func column(withOrigin origin: Column.Origin) -> Column? {
        columns.first { $0.origin == origin }
    }
}
