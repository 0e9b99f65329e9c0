/// Primary keys other than the standard `id bigint` identity (`key:`, see ``EntityKey``), and the
/// foreign keys that reference them.
extension RelationalMapper {
    /// The key column a root entity's table begins with: its surrogate `id`, or none for a key of
    /// properties (their columns are the entity's own).
    func keyColumns(of root: Entity) -> [Column] {
        let key = root.key?.surrogate ?? (root.key == nil ? .standard : nil)
        guard let key else { return [] }
        let isIdentity = key.generation == .byDefault || key.generation == .always
        var column = Column(
            name: SQLName.primaryKeyColumn, type: key.type, isNullable: false,
            defaultValue: key.defaultExpression.map(DefaultValue.expression), isIdentity: isIdentity, origin: .primaryKey,
            generation: key.generation == .byDefault ? nil : key.generation
        )
        column.sequenceOptions = key.ownsSequence ? key.sequenceOptions : nil
        return [column]
    }

    /// The columns of the primary key of `root`'s table, in key order.
    func primaryKeyColumns(of root: Entity) -> [String] {
        referencedKey(ofEntity: root.name).map(\.column)
    }

    /// The columns a foreign key to `entity` references (its root's key), with their types:
    /// `[(id, bigint)]` for the standard key. A key property that is a to-one takes the type of the
    /// key it references in turn; a property that cannot be resolved is left out.
    func referencedKey(ofEntity entity: String, seen: Set<String> = []) -> [(column: String, type: SQLType)] {
        let rootName = graph.root(of: entity)
        guard let root = graph.byName[rootName] else { return [(SQLName.primaryKeyColumn, .bigint)] }
        switch root.key ?? .id(.standard) {
        case .id(let key):
            return [(SQLName.primaryKeyColumn, key.type)]
        case .properties(let names):
            return names.compactMap { name in
                if let attribute = root.attribute(named: name) { return (attribute.columnName, attribute.sqlType) }
                guard let relationship = root.relationship(named: name), holdsForeignKey(relationship, declaredBy: rootName),
                      !seen.contains(rootName) else { return nil }
                let type = referencedKey(ofEntity: relationship.destination, seen: seen.union([rootName])).first?.type ?? .bigint
                return (relationship.foreignKeyColumnName, type)
            }
        }
    }

    /// The column a single-column foreign key to `entity` references, and its type (for a
    /// composite key, which no to-one may reference, its first column).
    func foreignKeyTarget(of entity: String) -> (column: String, type: SQLType) {
        referencedKey(ofEntity: entity).first ?? (SQLName.primaryKeyColumn, .bigint)
    }
}
