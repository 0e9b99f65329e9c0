/// Which entity and property of one version is which of another, for marking a diagram: an
/// element of the newer version names its older self by `renamingIdentifier`, or else by its own
/// name (Core Data's rule). Properties are looked up across the whole hierarchy of the matched
/// entity, so a property moved between a parent and its sub-entities is found.
struct ModelMatch: Sendable {
    /// Source entity → destination entity.
    var entities: [String: String] = [:]
    /// Source property → destination property.
    var properties: [ERDiagram.PropertyKey: ERDiagram.PropertyKey] = [:]

    /// The match along `path`, walked in order (either way along the family's list): each adjacent
    /// pair is matched from its newer version, and read backwards when the walk goes down.
    static func along(_ path: VersionPath) -> ModelMatch {
        path.pairs.reduce(ModelMatch.identity(of: path.source)) { match, pair in
            match.then(pair.isUpward ? between(older: pair.source, newer: pair.destination)
                                     : between(older: pair.destination, newer: pair.source).inverted())
        }
    }

    /// Every element of `version` matched to itself.
    static func identity(of version: ModelVersion) -> ModelMatch {
        var match = ModelMatch()
        for entity in version.entities {
            match.entities[entity.name] = entity.name
            for key in Self.keys(declaredBy: entity) { match.properties[key] = key }
        }
        return match
    }

    static func between(older: ModelVersion, newer: ModelVersion) -> ModelMatch {
        var match = ModelMatch()
        for entity in newer.entities {
            let oldName = entity.renamingIdentifier.flatMap { older.entity(named: $0) != nil ? $0 : nil } ?? entity.name
            if older.entity(named: oldName) != nil { match.entities[oldName] = entity.name }
        }
        for entity in newer.entities {
            // The older hierarchy this entity's properties may come from: that of its nearest
            // matched ancestor (itself included).
            let lineage = [entity.name] + newer.ancestors(of: entity.name)
            guard let anchor = lineage.lazy.compactMap({ name in match.entities.first { $0.value == name }?.key }).first else { continue }
            let candidates = older.hierarchy(of: older.rootEntity(of: anchor)).compactMap(older.entity(named:))
            let own = match.entities.first { $0.value == entity.name }?.key
            for key in keys(declaredBy: entity) {
                let renamed = key.isRelationship
                    ? entity.relationship(named: key.name)?.renamingIdentifier : entity.attribute(named: key.name)?.renamingIdentifier
                let found = [renamed, key.name].compactMap { $0 }.lazy.compactMap { name in
                    // The entity's own older self first, then the rest of the hierarchy.
                    candidates.sorted { ($0.name == own ? 0 : 1, $0.name) < ($1.name == own ? 0 : 1, $1.name) }.first { old in
                        key.isRelationship ? old.relationship(named: name) != nil : old.attribute(named: name) != nil
                    }.map { ERDiagram.PropertyKey(entity: $0.name, isRelationship: key.isRelationship, name: name) }
                }.first
                if let found { match.properties[found] = key }
            }
        }
        return match
    }

    func inverted() -> ModelMatch {
        ModelMatch(
            entities: Dictionary(entities.map { ($1, $0) }, uniquingKeysWith: min),
            properties: Dictionary(properties.map { ($1, $0) }, uniquingKeysWith: { $0.name < $1.name ? $0 : $1 })
        )
    }

    func then(_ next: ModelMatch) -> ModelMatch {
        ModelMatch(entities: entities.compactMapValues { next.entities[$0] }, properties: properties.compactMapValues { next.properties[$0] })
    }

    /// The source entity that became `entity`, if any.
    func sourceEntity(of entity: String) -> String? {
        entities.first { $0.value == entity }?.key
    }

    private static func keys(declaredBy entity: Entity) -> [ERDiagram.PropertyKey] {
        entity.attributes.map { .init(entity: entity.name, isRelationship: false, name: $0.name) }
            + entity.relationships.map { .init(entity: entity.name, isRelationship: true, name: $0.name) }
    }
}
