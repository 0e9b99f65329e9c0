/// The physical shape of a model version in PostgreSQL: its tables, in order of name.
///
/// Built by ``ModelVersion/relationalSchema()``; rendered as DDL by
/// ``createStatements(inSchema:quoting:)``. Every table and column records its ``Table/Origin`` or
/// ``Column/Origin``, so a migration engine can match them across versions by entity and property
/// names (and their renaming identifiers).
public struct RelationalSchema: Hashable, Sendable, Codable {
    /// The tables, sorted by name.
    public var tables: [Table]
    /// The sequences no column owns, sorted by name; created before the tables, whose defaults may
    /// draw from them.
    public var sequences: [ModelSequence] = []
    /// The enum types its columns use (`CREATE TYPE … AS ENUM`), sorted by name.
    public var enumTypes: [EnumType] = []

    /// Creates a schema; the tables are sorted by name.
    public init(tables: [Table], enumTypes: [EnumType] = []) {
        self.tables = tables.sorted { $0.name < $1.name }
        self.enumTypes = enumTypes.sorted { $0.name < $1.name }
    }

    /// The table named `name`.
    public func table(named name: String) -> Table? {
        tables.first { $0.name == name }
    }

    /// The table that stores the root entity `entity` (or the root of `entity`'s hierarchy, when
    /// `entity` is a root).
    public func table(forEntity entity: String) -> Table? {
        tables.first { $0.origin == .entity(entity) }
    }

    /// The join table that stores the to-many `relationship` of `entity` (the owning side).
    public func joinTable(forEntity entity: String, relationship: String) -> Table? {
        tables.first { $0.origin == .joinTable(entity: entity, relationship: relationship) }
    }
}
