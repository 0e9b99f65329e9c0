import EntityModel

/// Which element of one model version is which element of another: entities, attributes and
/// relationships, matched by name or by renamingIdentifier (Core Data's rule).
///
/// Computed for adjacent versions from the newer version's renamingIdentifiers, it is inverted for
/// down steps and composed for fused steps, so a rename chain v1 → v2 → v3 is followed end to end.
struct Correspondence: Sendable {
    /// A property by the entity that declares it and its name.
    struct Property: Hashable, Sendable { let entity: String, name: String }

    var entities: [String: String] = [:]
    var attributes: [Property: Property] = [:]
    var relationships: [Property: Property] = [:]

    /// Matches `older` to `newer`: each newer element names its older self by renamingIdentifier,
    /// or else by its own name.
    static func between(older: ModelVersion, newer: ModelVersion) -> Correspondence {
        var result = Correspondence()
        for entity in newer.entities {
            let key = entity.renamingIdentifier.flatMap { older.entity(named: $0) != nil ? $0 : nil } ?? entity.name
            guard older.entity(named: key) != nil else { continue }
            result.entities[key] = entity.name
        }
        for (oldEntity, newEntity) in result.entities {
            let oldAttributes = older.allAttributes(of: oldEntity)
            for (declaredBy, attribute) in newer.allAttributes(of: newEntity) {
                let match = oldAttributes.first { $0.attribute.name == attribute.renamingIdentifier }
                    ?? oldAttributes.first { $0.attribute.name == attribute.name }
                if let match {
                    result.attributes[Property(entity: match.declaredBy, name: match.attribute.name)] = Property(entity: declaredBy, name: attribute.name)
                }
            }
            let oldRelationships = older.allRelationships(of: oldEntity)
            for (declaredBy, relationship) in newer.allRelationships(of: newEntity) {
                let match = oldRelationships.first { $0.relationship.name == relationship.renamingIdentifier }
                    ?? oldRelationships.first { $0.relationship.name == relationship.name }
                if let match {
                    result.relationships[Property(entity: match.declaredBy, name: match.relationship.name)] = Property(entity: declaredBy, name: relationship.name)
                }
            }
        }
        return result
    }

    /// The same matches, read the other way.
    func inverted() -> Correspondence {
        Correspondence(
            entities: Dictionary(entities.map { ($1, $0) }, uniquingKeysWith: { first, _ in first }),
            attributes: Dictionary(attributes.map { ($1, $0) }, uniquingKeysWith: { first, _ in first }),
            relationships: Dictionary(relationships.map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        )
    }

    /// This correspondence followed by `next`.
    func then(_ next: Correspondence) -> Correspondence {
        Correspondence(
            entities: entities.compactMapValues { next.entities[$0] },
            attributes: attributes.compactMapValues { next.attributes[$0] },
            relationships: relationships.compactMapValues { next.relationships[$0] }
        )
    }

    /// The correspondence for an adjacent pair, in the direction given.
    static func adjacent(from source: ModelVersion, to destination: ModelVersion, sourceIsOlder: Bool) -> Correspondence {
        sourceIsOlder ? between(older: source, newer: destination) : between(older: destination, newer: source).inverted()
    }

    /// Maps a column's origin from the source version to the destination version.
    func map(_ origin: Column.Origin) -> Column.Origin? {
        switch origin {
        case .primaryKey: return .primaryKey
        case .discriminator: return .discriminator
        case let .attribute(entity, attribute):
            return attributes[Property(entity: entity, name: attribute)].map { .attribute(entity: $0.entity, attribute: $0.name) }
        case let .relationship(entity, relationship):
            return relationships[Property(entity: entity, name: relationship)].map { .relationship(entity: $0.entity, relationship: $0.name) }
        case let .joinSource(entity, relationship):
            return relationships[Property(entity: entity, name: relationship)].map { .joinSource(entity: $0.entity, relationship: $0.name) }
        case let .joinDestination(entity, relationship):
            return relationships[Property(entity: entity, name: relationship)].map { .joinDestination(entity: $0.entity, relationship: $0.name) }
        }
    }
}
