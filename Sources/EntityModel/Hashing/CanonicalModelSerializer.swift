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
    /// The version's own sequences, hashed after the entities (only where there are any).
    var sequences: [ModelSequence] = []

    /// The first line, naming the format, so that a future format cannot collide with this one.
    static let header = "tenantmigrator-model-shape 1"

    /// The text behind the version hash.
    func versionText() -> String {
        var lines = [Self.header]
        for entity in graph.entities {
            lines.append(entityLine(entity))
            lines += propertyLines(of: entity)
        }
        lines += sequences.map(\.canonicalText)
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
            + entity.uniques.map { " unique " + $0.map { CanonicalText.quoted($0) }.joined(separator: ",") }.joined()
            + entity.checks.map { " check " + CanonicalText.quoted($0) }.joined()
            + entity.indexes.map { " " + $0.canonicalText }.joined()
            + (entity.key.map { " " + $0.canonicalText } ?? "")
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
                + referencedKeyText(relationship, holdsKey: holdsKey)
                + (relationship.joinOnDelete.map { " joinOnDelete " + $0.rawValue } ?? "")
                + (relationship.joinTableOverride.map { " joinTable " + CanonicalText.quoted($0) } ?? "")
                + (relationship.joinColumnsOverride.map { " joinColumns " + $0.map { CanonicalText.quoted($0) }.joined(separator: ",") } ?? "")
                + (relationship.joinKey.map { " joinKey " + $0.rawValue } ?? "")
                + (relationship.joinOnUpdate.map { " joinOnUpdate " + $0.rawValue } ?? "")
        }
        return attributes + relationships
    }

    /// ` references "code" "character varying(8)"` where a key-holding to-one references another key
    /// than the standard `id bigint`, so that a change of the destination's key changes this entity's hash.
    private func referencedKeyText(_ relationship: Relationship, holdsKey: Bool) -> String {
        guard holdsKey else { return "" }
        let target = mapper.foreignKeyTarget(of: relationship.destination)
        guard target.column != SQLName.primaryKeyColumn || target.type != .bigint else { return "" }
        return " references " + CanonicalText.quoted(target.column) + " " + CanonicalText.quoted(target.type.rawValue)
    }
}

extension EntityKey {
    /// `key id "uuid" - sql:"gen_random_uuid()"`, or `key properties "order","product"`; a key's
    /// sequence options follow only where given (`key id "integer" serial start 7 increment 5`),
    /// so that a key written before they existed keeps its hash.
    var canonicalText: String {
        switch self {
        case .id(let key):
            "key id " + CanonicalText.quoted(key.type.rawValue) + " " + (key.generation?.rawValue ?? "-")
                + (key.defaultExpression.map { " sql:" + CanonicalText.quoted($0) } ?? "")
                + (key.sequenceOptions?.writtenKeys ?? []).map { " \($0.key) \($0.value)" }.joined()
        case .properties(let names):
            "key properties " + names.map(CanonicalText.quoted).joined(separator: ",")
        }
    }
}

extension ModelSequence {
    /// `sequence "hibernate_sequence" "bigint" start 1 increment 50`, then `minValue 10 maxValue 1000
    /// cycle true cache 5` only where given, so that a sequence written before they existed keeps its hash.
    var canonicalText: String {
        "sequence \(CanonicalText.quoted(name)) \(CanonicalText.quoted(type.rawValue)) start \(start) increment \(increment)"
            + optionKeys.map { " \($0.key) \($0.value)" }.joined()
    }
}
