import EntityModel

/// Core Data's renaming identifiers (`elementID`, "Renaming ID" in Xcode) turned into the model's
/// `renamingIdentifier`, which names an element's previous name.
///
/// Core Data matches an element of a version with one of the previous version whose identifier is
/// the same, an element's identifier being its renaming identifier, or its name when it has none
/// (so `method` with renaming identifier `instructions` is the earlier `instructions`). Xcode also
/// tells users to set the renaming identifier to the earlier element's name, which the same rule
/// covers; when the earlier element had a renaming identifier of its own, its name is tried too.
enum CoreDataRenaming {
    /// Sets the renaming identifiers of `current`'s entities and properties from their `elementID`s
    /// and those of `previous`.
    static func resolve(_ current: inout CoreDataModelConverter.Converted, after previous: CoreDataModelConverter.Converted) {
        let oldEntities = Dictionary(previous.entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func identifier(_ key: String, in converted: CoreDataModelConverter.Converted, name: String) -> String {
            converted.elementIDs[key] ?? name
        }
        // The earlier elements by identifier and by name, the first of each kept: one look-up per
        // element, so a bundle of many properties imports in time proportional to their number.
        func indexed(_ candidates: [(key: String, name: String)]) -> (byIdentifier: [String: String], byName: [String: String]) {
            var byIdentifier: [String: String] = [:], byName: [String: String] = [:]
            for candidate in candidates {
                let id = identifier(candidate.key, in: previous, name: candidate.name)
                if byIdentifier[id] == nil { byIdentifier[id] = candidate.name }
                if byName[candidate.name] == nil { byName[candidate.name] = candidate.name }
            }
            return (byIdentifier, byName)
        }
        func match(_ key: String, name: String, among candidates: (byIdentifier: [String: String], byName: [String: String])) -> String? {
            candidates.byIdentifier[identifier(key, in: current, name: name)]
                ?? current.elementIDs[key].flatMap { candidates.byName[$0] }
        }
        let oldEntityNames = indexed(previous.entities.map { ($0.name, $0.name) })
        for index in current.entities.indices {
            let entity = current.entities[index]
            let oldName = match(entity.name, name: entity.name, among: oldEntityNames)
            if let oldName, oldName != entity.name { current.entities[index].renamingIdentifier = oldName }
            guard let oldName else { continue }
            // The old entity's properties, inherited ones included: a property may have moved.
            var lineage: [Entity] = []
            var cursor = oldEntities[oldName]
            while let found = cursor {
                lineage.append(found)
                cursor = found.parent.flatMap { oldEntities[$0] }
            }
            let oldAttributes = indexed(lineage.flatMap { owner in owner.attributes.map { ("\(owner.name).\($0.name)", $0.name) } })
            let oldRelationships = indexed(lineage.flatMap { owner in owner.relationships.map { ("\(owner.name).\($0.name)", $0.name) } })
            // Set on copies, then put back once: each change to an entity's list sorts it again.
            var attributes = entity.attributes, relationships = entity.relationships
            for (position, attribute) in attributes.enumerated() {
                if let old = match("\(entity.name).\(attribute.name)", name: attribute.name, among: oldAttributes), old != attribute.name {
                    attributes[position].renamingIdentifier = old
                }
            }
            for (position, relationship) in relationships.enumerated() {
                if let old = match("\(entity.name).\(relationship.name)", name: relationship.name, among: oldRelationships), old != relationship.name {
                    relationships[position].renamingIdentifier = old
                }
            }
            current.entities[index].attributes = attributes
            current.entities[index].relationships = relationships
        }
    }
}
