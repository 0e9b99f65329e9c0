import EntityModel

extension Correspondence {
    /// Matches properties that move between an entity and a sub-entity that is new or removed
    /// (`older` → `newer`), by name or renamingIdentifier, as docs/Migrations.md promises:
    /// - down into a new sub-entity: the older entity's property becomes the sub-entity's; the
    ///   rows that become the sub-entity keep its values (``descended``);
    /// - up out of a removed sub-entity: its own property becomes its nearest surviving
    ///   ancestor's, and its rows become rows of that ancestor, values kept (``folded``), when the
    ///   ancestor is concrete.
    /// Moves between entities that exist on both sides are matched by the general rule already.
    mutating func matchHierarchyMoves(older: ModelVersion, newer: ModelVersion) {
        let existing = Set(entities.values)
        // Down: a new sub-entity of an existing entity declares a property the older entity had.
        for entity in newer.entities where !existing.contains(entity.name) {
            guard let ancestor = newer.ancestors(of: entity.name).first(where: existing.contains),
                  let olderAncestor = entities.first(where: { $0.value == ancestor })?.key else { continue }
            let oldAttributes = older.allAttributes(of: olderAncestor)
            var moved = false
            for attribute in entity.attributes {
                guard let match = oldAttributes.first(where: { $0.attribute.name == attribute.renamingIdentifier })
                        ?? oldAttributes.first(where: { $0.attribute.name == attribute.name }) else { continue }
                let key = Property(entity: match.declaredBy, name: match.attribute.name)
                guard attributes[key] == nil else { continue }
                attributes[key] = Property(entity: entity.name, name: attribute.name)
                moved = true
            }
            let oldRelationships = older.allRelationships(of: olderAncestor)
            for relationship in entity.relationships {
                guard let match = oldRelationships.first(where: { $0.relationship.name == relationship.renamingIdentifier })
                        ?? oldRelationships.first(where: { $0.relationship.name == relationship.name }) else { continue }
                let key = Property(entity: match.declaredBy, name: match.relationship.name)
                guard relationships[key] == nil else { continue }
                relationships[key] = Property(entity: entity.name, name: relationship.name)
                moved = true
            }
            if moved, older.entity(named: olderAncestor)?.isAbstract == false { descended[entity.name] = olderAncestor }
        }
        // Up: a removed sub-entity's own property is now declared by a surviving ancestor.
        for entity in older.entities where entities[entity.name] == nil {
            guard let ancestor = older.ancestors(of: entity.name).first(where: { entities[$0] != nil }),
                  let newerAncestor = entities[ancestor] else { continue }
            let newAttributes = newer.allAttributes(of: newerAncestor)
            var moved = false
            for attribute in entity.attributes {
                guard let match = newAttributes.first(where: { $0.attribute.renamingIdentifier == attribute.name })
                        ?? newAttributes.first(where: { $0.attribute.name == attribute.name }) else { continue }
                attributes[Property(entity: entity.name, name: attribute.name)] = Property(entity: match.declaredBy, name: match.attribute.name)
                moved = true
            }
            let newRelationships = newer.allRelationships(of: newerAncestor)
            for relationship in entity.relationships {
                guard let match = newRelationships.first(where: { $0.relationship.renamingIdentifier == relationship.name })
                        ?? newRelationships.first(where: { $0.relationship.name == relationship.name }) else { continue }
                relationships[Property(entity: entity.name, name: relationship.name)] = Property(entity: match.declaredBy, name: match.relationship.name)
                moved = true
            }
            if moved, newer.entity(named: newerAncestor)?.isAbstract == false { folded[entity.name] = newerAncestor }
        }
    }
}
