/// A stored property of an entity (Core Data's `NSAttributeDescription`). It becomes one column.
public struct Attribute: Hashable, Sendable, Codable {
    /// The attribute's name, unique among the entity's properties including inherited ones.
    public var name: String
    /// The attribute's type: for a PostgreSQL type (``columnType``), the model's kind of value it
    /// holds (`string` for `varchar(255)`, `decimal` for `numeric(12,2)`), which reads its default.
    public var type: AttributeType
    /// The PostgreSQL column type when the version file names one the model's type does not map to
    /// (`type: varchar(255)`); nil for the model's own types. Never ``AttributeType/sqlType`` of ``type``.
    public var columnType: SQLType?
    /// Whether the attribute may be absent (`NULL`). Defaults to `false`.
    public var isOptional: Bool
    /// The value a new row gets when none is given.
    public var defaultValue: DefaultValue?
    /// Whether no two rows may hold the same value (a `UNIQUE` constraint).
    public var isUnique: Bool
    /// Whether the column gets an index (redundant, and so not created, when ``isUnique``).
    public var isIndexed: Bool
    /// The attribute's name in the previous version, when it was renamed (Core Data style).
    /// Not part of the stored shape.
    public var renamingIdentifier: String?
    /// An explicit column name, overriding the snake_case of ``name``.
    public var columnOverride: String?
    /// Declares that a narrowing type change into this version is safe (reserved for the migration
    /// engine). Not part of the stored shape.
    public var allowsNarrowing: Bool
    /// Where the attribute was declared, when it came from a file.
    public var location: SourceLocation?
    /// A condition its values meet, in SQL over its column (`price >= 0`): a `CHECK` constraint.
    public var check: String?
    /// A comment on its column (`COMMENT ON COLUMN`).
    public var comment: String?

    /// Creates an attribute.
    public init(
        name: String,
        type: AttributeType,
        columnType: SQLType? = nil,
        isOptional: Bool = false,
        defaultValue: DefaultValue? = nil,
        isUnique: Bool = false,
        isIndexed: Bool = false,
        renamingIdentifier: String? = nil,
        columnOverride: String? = nil,
        allowsNarrowing: Bool = false,
        location: SourceLocation? = nil
    ) {
        self.name = name
        self.type = type
        self.columnType = columnType
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.isUnique = isUnique
        self.isIndexed = isIndexed
        self.renamingIdentifier = renamingIdentifier
        self.columnOverride = columnOverride
        self.allowsNarrowing = allowsNarrowing
        self.location = location
    }

    /// The PostgreSQL type of the attribute's column: ``columnType``, or the model type's.
    public var sqlType: SQLType { columnType ?? type.sqlType }

    /// The type as a version file writes it: `string`, or PostgreSQL's name (`character varying(255)`).
    public var typeName: String { columnType.map(PostgreSQLTypeName.written) ?? type.rawValue }

    /// The column this attribute is stored in: ``columnOverride``, or the snake_case of ``name``.
    public var columnName: String { columnOverride ?? name.snakeCased }
}
