/// The entities of one version, indexed for inheritance and relationship look-ups.
///
/// It tolerates a broken model: a parent that does not exist, or an inheritance cycle, is recorded
/// and its link dropped, so validation can keep going and report everything at once.
struct EntityGraph: Sendable {
    /// The entities, sorted by name; of two with the same name, the first declared.
    let entities: [Entity]
    /// Entities by name.
    let byName: [String: Entity]
    /// Valid parent links (the parent exists and no cycle).
    let parentOf: [String: String]
    /// Direct sub-entities, sorted by name.
    let childrenOf: [String: [String]]
    /// Inheritance cycles found, each as the names along the cycle.
    let cycles: [[String]]

    init(_ declared: [Entity]) {
        var byName: [String: Entity] = [:]
        for entity in declared where byName[entity.name] == nil { byName[entity.name] = entity }
        var parentOf: [String: String] = [:]
        for entity in byName.values {
            if let parent = entity.parent, byName[parent] != nil { parentOf[entity.name] = parent }
        }
        var cycles: [[String]] = []
        var inCycle: Set<String> = []
        for name in byName.keys.sorted() where !inCycle.contains(name) {
            var path: [String] = [name]
            var current = name
            while let parent = parentOf[current], !inCycle.contains(parent) {
                if let start = path.firstIndex(of: parent) {
                    let cycle = Array(path[start...])
                    cycles.append(cycle)
                    inCycle.formUnion(cycle)
                    break
                }
                path.append(parent)
                current = parent
            }
        }
        for name in inCycle { parentOf[name] = nil }
        var childrenOf: [String: [String]] = [:]
        for (child, parent) in parentOf { childrenOf[parent, default: []].append(child) }
        for key in childrenOf.keys { childrenOf[key]?.sort() }

        self.entities = byName.values.sorted { $0.name < $1.name }
        self.byName = byName
        self.parentOf = parentOf
        self.childrenOf = childrenOf
        self.cycles = cycles
    }

    /// The ancestors of `name`, nearest first.
    func ancestors(of name: String) -> [String] {
        var result: [String] = []
        var current = name
        while let parent = parentOf[current] {
            result.append(parent)
            current = parent
        }
        return result
    }

    /// The root of `name`'s hierarchy (itself when it has no valid parent).
    func root(of name: String) -> String {
        ancestors(of: name).last ?? name
    }

    /// `name` and all its descendants, depth first, siblings by name.
    func subtree(of name: String) -> [String] {
        [name] + (childrenOf[name] ?? []).flatMap { subtree(of: $0) }
    }

    /// The names of the non-abstract entities in `name`'s subtree, sorted.
    func concreteEntities(inSubtreeOf name: String) -> [String] {
        subtree(of: name).filter { byName[$0]?.isAbstract == false }.sorted()
    }

    /// The root entities, sorted by name.
    var roots: [Entity] {
        entities.filter { parentOf[$0.name] == nil }
    }

    /// The attributes of `name`, inherited ones first (root first), each with the entity declaring it.
    func effectiveAttributes(of name: String) -> [(declaredBy: String, attribute: Attribute)] {
        (ancestors(of: name).reversed() + [name]).flatMap { owner in
            (byName[owner]?.attributes ?? []).map { (owner, $0) }
        }
    }

    /// The relationships of `name`, inherited ones first (root first), each with the entity declaring it.
    func effectiveRelationships(of name: String) -> [(declaredBy: String, relationship: Relationship)] {
        (ancestors(of: name).reversed() + [name]).flatMap { owner in
            (byName[owner]?.relationships ?? []).map { (owner, $0) }
        }
    }

    /// The relationship `relationship` of `entity`, declared or inherited.
    func relationship(_ relationship: String, of entity: String) -> Relationship? {
        effectiveRelationships(of: entity).first { $0.relationship.name == relationship }?.relationship
    }

    /// The inverse of `relationship` (declared by `entity`) when it is valid: it exists on the
    /// destination, names `relationship` back, and points at `entity`.
    func validInverse(of relationship: Relationship, declaredBy entity: String) -> Relationship? {
        guard let inverseName = relationship.inverse,
              let inverse = byName[relationship.destination]?.relationship(named: inverseName),
              inverse.inverse == relationship.name,
              inverse.destination == entity
        else { return nil }
        return inverse
    }
}
