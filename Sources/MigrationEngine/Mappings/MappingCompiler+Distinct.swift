import EntityModel
import TypedSQL

/// Distinct mappings (`distinct:`), compiled into set-based SQL: pass 1 is one `INSERT … SELECT`
/// of the keys' first rows, pass 2 links rows to their key's row with one `UPDATE … FROM` joined
/// on the key. See ``DistinctRows``.
extension MappingCompiler {
    /// The compiled form of a distinct mapping; the joins its key, order and filter need are added
    /// to `outer` too.
    func distinctRows(_ mapping: EntityMapping, into outer: inout Selection) throws -> DistinctRows? {
        guard let distinct = mapping.distinct, let sourceTable = sourceTable(of: mapping.source) else { return nil }
        var selection = Selection()
        let conditions = try self.conditions(of: mapping, into: &selection)
        let key = try rewrite(distinct.key, from: mapping.source, into: &selection)
        let order = try distinct.orderBy.map { try rewrite($0, from: mapping.source, into: &selection) }
        _ = try self.conditions(of: mapping, into: &outer)
        _ = try rewrite(distinct.key, from: mapping.source, into: &outer)
        _ = try distinct.orderBy.map { try rewrite($0, from: mapping.source, into: &outer) }
        return DistinctRows(mapping: mapping.name, sourceTable: sourceTable, from: selection.from(sourceTable), conditions: conditions,
                            key: key, order: order, offsetSetting: Self.offsetSetting(mapping))
    }

    /// The compiled form of a distinct mapping, on its own.
    func distinctRows(_ mapping: EntityMapping) throws -> DistinctRows? {
        var unused = Selection()
        return try distinctRows(mapping, into: &unused)
    }

    /// Pass 1 of a distinct mapping: the offset, the keys (``DistinctRows/setUp``), one row per key
    /// from its first row (attributes as for any mapping into another table, unmentioned ones
    /// copied by name), the identity moved on.
    func createDistinctInstances(_ mapping: EntityMapping, into table: Table) throws -> [SQL] {
        var selection = Selection()
        guard let rows = try distinctRows(mapping, into: &selection) else { return [] }
        let values = try attributeValues(of: mapping, into: &selection, copyUnmentioned: true)
        var statements = insertRows(of: mapping, into: table, id: "tm_keys.id", values: values,
                                    from: selection.from(rows.sourceTable) + " " + rows.joinFirstRows(as: "tm_keys"), whereClause: "")
        // The keys are fixed once the offset is known, before the rows are made from them.
        statements.insert(contentsOf: rows.setUp, at: 1)
        return statements
    }

    /// The id of the row that distinct mapping `target` made for the key of the row at `from` (a
    /// key path from `entity` to a row of the target's source entity): a LEFT JOIN of the target's
    /// keys table, added to `selection`, and the column to read. NULL where the target made no row
    /// for that key.
    func distinctLink(to target: EntityMapping, from path: String, of entity: String, into selection: inout Selection) throws -> SQL {
        guard let distinct = target.distinct, let rows = try distinctRows(target) else {
            throw MappingCompileError("mapping \(target.name) is not a distinct mapping")
        }
        let alias = SQLAlias("tm_key_\(selection.joins.count)")
        let key = try rewrite(Self.expression(distinct.key, at: path), from: entity, into: &selection)
        selection.joins.append("LEFT JOIN \(table: rows.keysTable) AS \(alias: alias) ON \(alias: alias).key = (\(key))")
        return "\(alias: alias).id"
    }

    /// `expression` over the row a key path leads to: each of its key paths starts at `path`
    /// instead of at `source` (`lower(source.name)` at `source.project` is `lower(source.project.name)`).
    static func expression(_ expression: String, at path: String) -> String {
        guard path != "source" else { return expression }
        var result = ""
        var rest = expression.startIndex
        for (range, keyPath) in SourceKeyPath.occurrences(in: expression) {
            result += expression[rest..<range.lowerBound] + ([path] + keyPath.segments).joined(separator: ".")
            rest = range.upperBound
        }
        return result + expression[rest...]
    }

    /// The one-statement form of pass 2 where an in-place mapping's only relationship links each
    /// row to a distinct mapping's row for its own key, into a foreign key this step adds (NULL
    /// until now): `UPDATE S AS source SET fk = k.id FROM keys AS k WHERE k.key = K`, what one
    /// would write by hand (`keys`: the target's keys table). Nil where the general form is needed (joins, other relationships, a
    /// column that held values already).
    func plainDistinctLink(_ mapping: EntityMapping, in model: MappingModel, table: Table) throws -> SQL? {
        guard isInPlace(mapping), mapping.relationships.count == 1, let relationship = mapping.relationships.first,
              relationship.from == "source", relationship.mappings.count == 1,
              let target = model.entityMapping(named: relationship.mappings[0]), let distinct = target.distinct,
              let (declaredBy, _) = destination.allRelationships(of: mapping.destination).first(where: { $0.relationship.name == relationship.relationship }),
              let column = table.column(withOrigin: .relationship(entity: declaredBy, relationship: relationship.relationship)),
              let oldTable = differ.old.table(forEntity: source.rootEntity(of: mapping.source)),
              differ.columnMatch[oldTable.name]?.values.contains(column.name) != true,
              let rows = try distinctRows(target) else { return nil }
        var selection = Selection()
        let key = try rewrite(distinct.key, from: mapping.source, into: &selection)
        let conditions = try self.conditions(of: mapping, into: &selection)
        guard selection.joins.isEmpty else { return nil }
        return "UPDATE \(table: table.name) AS source SET \(id: column.name) = tm_key.id FROM \(table: rows.keysTable) AS tm_key "
            + "WHERE \((["tm_key.key = (\(key))"] + conditions), joinedBy: " AND ")"
    }
}
