/// The canonical text of a model's stored shape, hashed into ``ModelVersion/versionHash`` and
/// ``Entity/versionHash``.
///
/// One line per entity and per property, entities sorted by name and properties by name within their
/// entity, every name quoted. Only what decides the stored shape is written: names, resolved table and
/// column names, types, optionality, defaults, uniqueness, indexes, relationships (destination,
/// cardinality, inverse, delete rule) and inheritance. Renaming identifiers, `allowsNarrowing`,
/// `minCount`/`maxCount`, source locations, key order, comments and layout are left out.
struct CanonicalModelSerializer {
    let graph: EntityGraph
    let mapper: RelationalMapper

    /// The first line, naming the format, so that a future format cannot collide with this one.
    static let header = "tenantmigrator-model-shape 1"

    /// The text behind the version hash.
    func versionText() -> String {
        var lines = [Self.header]
        for entity in graph.entities {
            lines.append(entityLine(entity))
            lines += propertyLines(of: entity)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The text behind an entity's hash: the entity, its lineage, and every property it has,
    /// inherited ones included.
    func entityText(_ name: String) -> String {
        guard let entity = graph.byName[name] else { return Self.header + "\n" }
        var lines = [Self.header, entityLine(entity)]
        let lineage = graph.ancestors(of: name).reversed() + [name]
        lines.append("lineage " + lineage.map(CanonicalText.quoted).joined(separator: " "))
        for owner in lineage {
            if let declaring = graph.byName[owner] { lines += propertyLines(of: declaring) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func entityLine(_ entity: Entity) -> String {
        [
            "entity", CanonicalText.quoted(entity.name),
            "table", CanonicalText.quoted(mapper.tableName(of: entity.name)),
            "parent", CanonicalText.optional(graph.parentOf[entity.name]),
            "abstract", CanonicalText.flag(entity.isAbstract),
        ].joined(separator: " ")
            // Written only where given, so that the hash of every model without them stays as it was.
            + entity.uniques.map { " unique " + $0.map(CanonicalText.quoted).joined(separator: ",") }.joined()
            + entity.checks.map { " check " + CanonicalText.quoted($0) }.joined()
            + entity.indexes.map { " " + $0.canonicalText }.joined()
            + (entity.comment.map { " comment " + CanonicalText.quoted($0) } ?? "")
    }

    private func propertyLines(of entity: Entity) -> [String] {
        let owner = CanonicalText.quoted(entity.name)
        let attributes = entity.attributes.map { attribute in
            [
                "attribute", owner, CanonicalText.quoted(attribute.name),
                "column", CanonicalText.quoted(attribute.columnName),
                "type", attribute.type.rawValue + (attribute.columnType.map { " sqlType " + CanonicalText.quoted($0.rawValue) } ?? ""),
                "optional", CanonicalText.flag(attribute.isOptional),
                "default", attribute.defaultValue?.canonicalText ?? "-",
                "unique", CanonicalText.flag(attribute.isUnique),
                "indexed", CanonicalText.flag(attribute.isIndexed),
            ].joined(separator: " ") + (attribute.check.map { " check " + CanonicalText.quoted($0) } ?? "")
                + (attribute.comment.map { " comment " + CanonicalText.quoted($0) } ?? "")
        }
        let relationships = entity.relationships.map { relationship in
            let holdsKey = mapper.holdsForeignKey(relationship, declaredBy: entity.name)
            return [
                "relationship", owner, CanonicalText.quoted(relationship.name),
                "destination", CanonicalText.quoted(relationship.destination),
                "toMany", CanonicalText.flag(relationship.isToMany),
                "optional", CanonicalText.flag(relationship.isOptional),
                "inverse", CanonicalText.optional(relationship.inverse),
                "deleteRule", relationship.deleteRule.rawValue,
                "column", CanonicalText.optional(holdsKey ? relationship.foreignKeyColumnName : nil),
            ].joined(separator: " ")
                // Written only where given, so that the hash of every model without them stays as it was.
                + (relationship.onUpdate.map { " onUpdate " + $0.rawValue } ?? "")
                + (relationship.isDeferred ? " deferred" : "") + (relationship.isIndexed ? "" : " unindexed")
        }
        return attributes + relationships
    }
}
