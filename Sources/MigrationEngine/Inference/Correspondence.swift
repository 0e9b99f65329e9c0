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
    /// Further matches of a property that corresponds to several (a property moved up from sibling
    /// sub-entities into their new parent, read downwards): tried after the primary match, so each
    /// table picks the one it holds.
    var otherAttributes: [Property: [Property]] = [:]
    var otherRelationships: [Property: [Property]] = [:]
    /// Sub-entities that no longer exist but whose own properties moved up into a surviving
    /// ancestor: their rows become rows of that ancestor (source name → destination name).
    var folded: [String: String] = [:]
    /// New sub-entities that received properties moved down from an existing entity
    /// (destination name → source name): the reverse of ``folded``.
    var descended: [String: String] = [:]

    /// The destination entity whose rows the rows of source `entity` become, if any.
    func destinationEntity(of entity: String) -> String? { entities[entity] ?? folded[entity] }

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
            result.matchProperties(attributeKind, of: newEntity, in: newer, to: oldEntity, in: older)
            result.matchProperties(relationshipKind, of: newEntity, in: newer, to: oldEntity, in: older)
        }
        result.matchHierarchyMoves(older: older, newer: newer)
        result.unmatchRetargetedRelationships(older: older, newer: newer)
        return result
    }

    /// Drops the matches of relationships whose destination is another entity than their old
    /// destination became (its table's root is not the old one's): their links name rows of
    /// another table, so the newer relationship is a new one and the older one is removed
    /// (carried, a link would name an unrelated row, or none). A destination moved within its
    /// hierarchy keeps its table, and its links.
    private mutating func unmatchRetargetedRelationships(older: ModelVersion, newer: ModelVersion) {
        func destination(_ property: Property, in version: ModelVersion) -> String? {
            version.entity(named: property.entity)?.relationships.first { $0.name == property.name }?.destination
        }
        let kept = relationships.filter { old, new in
            guard let oldDestination = destination(old, in: older), let newDestination = destination(new, in: newer) else { return true }
            guard let became = destinationEntity(of: oldDestination) ?? entities[older.rootEntity(of: oldDestination)] else { return false }
            return newer.rootEntity(of: became) == newer.rootEntity(of: newDestination)
        }
        otherRelationships = otherRelationships.filter { kept[$0.key] != nil }
        relationships = kept
    }

    /// The same matches, read the other way. Where several elements matched one, the first by name
    /// is the primary match and the others are kept as alternatives.
    func inverted() -> Correspondence {
        func invert(_ map: [Property: Property]) -> (primary: [Property: Property], others: [Property: [Property]]) {
            let grouped = Dictionary(grouping: map, by: \.value).mapValues { $0.map(\.key).sorted { ($0.entity, $0.name) < ($1.entity, $1.name) } }
            return (grouped.mapValues { $0[0] }, grouped.filter { $0.value.count > 1 }.mapValues { Array($0.dropFirst()) })
        }
        let attributes = invert(attributes), relationships = invert(relationships)
        return Correspondence(
            entities: Dictionary(entities.map { ($1, $0) }, uniquingKeysWith: { first, _ in first }),
            attributes: attributes.primary,
            relationships: relationships.primary,
            otherAttributes: attributes.others,
            otherRelationships: relationships.others,
            folded: descended,
            descended: folded
        )
    }

    /// This correspondence followed by `next`, alternatives included.
    func then(_ next: Correspondence) -> Correspondence {
        func compose(_ first: [Property: Property], _ firstOthers: [Property: [Property]],
                     _ second: [Property: Property], _ secondOthers: [Property: [Property]]) -> (primary: [Property: Property], others: [Property: [Property]]) {
            var primary: [Property: Property] = [:], others: [Property: [Property]] = [:]
            for (key, match) in first {
                var all: [Property] = []
                for step in [match] + (firstOthers[key] ?? []) {
                    for end in (second[step].map { [$0] } ?? []) + (secondOthers[step] ?? []) where !all.contains(end) { all.append(end) }
                }
                guard let head = all.first else { continue }
                primary[key] = head
                if all.count > 1 { others[key] = Array(all.dropFirst()) }
            }
            return (primary, others)
        }
        let attributes = compose(attributes, otherAttributes, next.attributes, next.otherAttributes)
        let relationships = compose(relationships, otherRelationships, next.relationships, next.otherRelationships)
        var folded = self.folded.compactMapValues { next.destinationEntity(of: $0) }
        for (entity, mapped) in entities where folded[entity] == nil && next.entities[mapped] == nil {
            if let target = next.folded[mapped] { folded[entity] = target }
        }
        var descended = next.descended.compactMapValues { name in entities.first { $0.value == name }?.key }
        for (entity, origin) in self.descended { if let mapped = next.entities[entity] { descended[mapped] = origin } }
        return Correspondence(
            entities: entities.compactMapValues { next.entities[$0] },
            attributes: attributes.primary,
            relationships: relationships.primary,
            otherAttributes: attributes.others,
            otherRelationships: relationships.others,
            folded: folded,
            descended: descended
        )
    }

    /// The correspondence across an adjacent pair, in the direction it is crossed.
    static func adjacent(_ pair: VersionPair) -> Correspondence {
        pair.isUpward ? between(older: pair.source, newer: pair.destination) : between(older: pair.destination, newer: pair.source).inverted()
    }

    /// Every destination origin a source column's origin may map to, the primary match first.
    func candidates(_ origin: Column.Origin) -> [Column.Origin] {
        guard let primary = map(origin) else { return [] }
        switch origin {
        case let .attribute(entity, attribute):
            return [primary] + (otherAttributes[Property(entity: entity, name: attribute)] ?? []).map { .attribute(entity: $0.entity, attribute: $0.name) }
        case let .relationship(entity, relationship):
            return [primary] + (otherRelationships[Property(entity: entity, name: relationship)] ?? []).map { .relationship(entity: $0.entity, relationship: $0.name) }
        default:
            return [primary]
        }
    }

    /// The column of `table` that a source column's origin maps to, trying every candidate.
    func column(in table: Table, matching origin: Column.Origin) -> Column? {
        candidates(origin).lazy.compactMap { table.column(withOrigin: $0) }.first
    }

    /// Maps a column's origin from the source version to the destination version (its primary match).
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
