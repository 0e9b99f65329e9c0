extension ModelVersion {
    /// The root entities (those without a parent), sorted by name. Each has a table.
    public var rootEntities: [Entity] {
        entities.filter { $0.parent == nil }
    }

    /// The ancestors of `entity`, nearest first.
    public func ancestors(of entity: String) -> [String] {
        graph.ancestors(of: entity)
    }

    /// The root of `entity`'s hierarchy: the entity whose table stores it.
    public func rootEntity(of entity: String) -> String {
        graph.root(of: entity)
    }

    /// The direct sub-entities of `entity`, sorted by name.
    public func subentities(of entity: String) -> [String] {
        graph.childrenOf[entity] ?? []
    }

    /// `entity` and all its descendants, depth first, siblings by name.
    public func hierarchy(of entity: String) -> [String] {
        graph.subtree(of: entity)
    }

    /// The attributes of `entity`, inherited ones first, each with the entity that declares it.
    public func allAttributes(of entity: String) -> [(declaredBy: String, attribute: Attribute)] {
        graph.effectiveAttributes(of: entity)
    }

    /// The relationships of `entity`, inherited ones first, each with the entity that declares it.
    public func allRelationships(of entity: String) -> [(declaredBy: String, relationship: Relationship)] {
        graph.effectiveRelationships(of: entity)
    }

    /// The inverse of the relationship `relationship` declared by `entity`, if it has one.
    public func inverse(ofRelationship relationship: String, in entity: String) -> Relationship? {
        guard let declared = graph.byName[entity]?.relationship(named: relationship) else { return nil }
        return graph.validInverse(of: declared, declaredBy: entity)
    }
}
