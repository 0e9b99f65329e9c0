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
            let movedAttributes = matchMoved(Self.attributeKind, declaredBy: entity, ancestor: olderAncestor, in: older, down: true)
            let movedRelationships = matchMoved(Self.relationshipKind, declaredBy: entity, ancestor: olderAncestor, in: older, down: true)
            if movedAttributes || movedRelationships, older.entity(named: olderAncestor)?.isAbstract == false { descended[entity.name] = olderAncestor }
        }
        // Up: a removed sub-entity's own property is now declared by a surviving ancestor.
        for entity in older.entities where entities[entity.name] == nil {
            guard let ancestor = older.ancestors(of: entity.name).first(where: { entities[$0] != nil }),
                  let newerAncestor = entities[ancestor] else { continue }
            let movedAttributes = matchMoved(Self.attributeKind, declaredBy: entity, ancestor: newerAncestor, in: newer, down: false)
            let movedRelationships = matchMoved(Self.relationshipKind, declaredBy: entity, ancestor: newerAncestor, in: newer, down: false)
            if movedAttributes || movedRelationships, newer.entity(named: newerAncestor)?.isAbstract == false { folded[entity.name] = newerAncestor }
        }
    }

    /// Matches each property of `kind` that `entity` declares itself to its counterpart in
    /// `ancestor` of `version`, and returns whether any moved. Down (`entity` is a new sub-entity,
    /// `version` the older one), the ancestor's older property becomes the sub-entity's, unless it
    /// is matched already; up (`entity` is a removed sub-entity, `version` the newer one), the
    /// sub-entity's property becomes the ancestor's.
    private mutating func matchMoved<Element>(
        _ kind: PropertyKind<Element>, declaredBy entity: Entity, ancestor: String, in version: ModelVersion, down: Bool
    ) -> Bool {
        let candidates = kind.all(version, ancestor)
        var moved = false
        for property in entity[keyPath: kind.declared] {
            guard let match = down ? Self.older(of: property, among: candidates) : Self.newer(of: property, among: candidates) else { continue }
            let own = Property(entity: entity.name, name: property.name), counterpart = Property(entity: match.declaredBy, name: match.element.name)
            if down {
                guard self[keyPath: kind.matches][counterpart] == nil else { continue }
                self[keyPath: kind.matches][counterpart] = own
            } else {
                self[keyPath: kind.matches][own] = counterpart
            }
            moved = true
        }
        return moved
    }
}
