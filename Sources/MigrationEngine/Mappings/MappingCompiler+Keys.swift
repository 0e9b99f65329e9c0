import EntityModel
import TypedSQL

/// Declarative mappings over entities keyed otherwise than by an integer `id` (a `uuid` or text
/// `id`, a natural or composite key; ``ArchiveRowKey``): their rows are matched by their key's
/// columns instead of `id`, and a mapping into another table makes each destination row with its
/// source row's key (no offset: the key is the row's identity, as the archive keeps it). A to-one
/// refers to its destination's one key column, so key paths join on that column. Tables keyed by
/// an integer `id` compile to the statements they always had.
extension MappingCompiler {
    /// The key of `entity`'s source table, named as the mappings see its columns (after the step's
    /// renames); nil for an integer `id`.
    func sourceKey(of entity: String) -> [String]? {
        guard let table = differ.old.table(forEntity: source.rootEntity(of: entity)), let key = ArchiveRowKey(table) else { return nil }
        return key.columns.map { differ.currentName(ofOldColumn: $0.name, in: table.name) }
    }

    /// The key of `entity`'s destination table; nil for an integer `id`.
    func destinationKey(of entity: String) -> [String]? {
        destinationTable(of: entity).flatMap(ArchiveRowKey.init)?.columns.map(\.name)
    }

    /// `alias`'s column that a to-one into `entity` (a source entity) refers to: `id`, or the one
    /// column of its key.
    func referenced(_ alias: SQLAlias, entity: String) -> SQL {
        guard let key = sourceKey(of: entity), key.count == 1 else { return "\(alias: alias).id" }
        return "\(alias: alias).\(id: key[0])"
    }

    /// The column `source` and `source.id` read in a row of `entity`: `id`, or its key's one column.
    func identityColumn(of entity: String) throws -> String {
        guard let key = sourceKey(of: entity) else { return "id" }
        guard key.count == 1 else {
            throw KeyPathError("\(entity) is keyed by (\(key.joined(separator: ", "))): `source` alone names no one value of its rows; name its key's attributes")
        }
        return key[0]
    }

    /// `source.k AS tm_key0, …` for the subquery whose rows `keyMatch` finds again.
    static func keySelect(_ key: [String], of alias: SQLAlias = "source") -> [SQL] {
        key.enumerated().map { "\(alias: alias).\(id: $0.element) AS tm_key\(int: $0.offset)" }
    }

    /// `target.k = s.tm_key0 AND …`: the target row is the subquery's row `s`.
    static func keyMatch(_ key: [String]) -> SQL {
        let each: [SQL] = key.enumerated().map { "target.\(id: $0.element) = s.tm_key\(int: $0.offset)" }
        return "\(each, joinedBy: " AND ")"
    }

    /// Rows of a mapping from a keyed entity into another table keyed alike: `INSERT … SELECT`, each
    /// row with its source row's key (``MigrationStep/keyRefusals`` refused every other shape). A key
    /// column is never an attribute expression of the mapping; a same-named attribute's default copy
    /// is the key's own value.
    func insertKeyedRows(of mapping: EntityMapping, into table: Table, values: [(column: String, value: SQL)], from fromClause: SQL, whereClause: SQL) throws -> [SQL] {
        guard let sourceKey = sourceKey(of: mapping.source), let key = destinationKey(of: mapping.destination) else { return [] }
        let explicit = Set(mapping.attributes.compactMap { expression in
            destination.allAttributes(of: mapping.destination).first { $0.attribute.name == expression.attribute }
                .flatMap { table.column(withOrigin: .attribute(entity: $0.declaredBy, attribute: expression.attribute))?.name }
        })
        if let set = key.first(where: explicit.contains) {
            throw MappingCompileError("mapping \(mapping.name): \(mapping.destination)'s key column \(set) is set by an expression, but a row made from a keyed \(mapping.source) keeps its source row's key")
        }
        var columns = key
        var expressions: [SQL] = sourceKey.map { "source.\(id: $0)" }
        if table.column(withOrigin: .discriminator) != nil {
            columns.append("entity")
            expressions.append("\(literal: mapping.destination)")
        }
        for value in values where !key.contains(value.column) {
            columns.append(value.column)
            expressions.append(value.value)
        }
        return ["INSERT INTO \(table: table.name) (\(ids: columns))\(table.overridingSystemValue) SELECT \(expressions, joinedBy: ", ") FROM \(fromClause)\(whereClause)"]
    }
}
