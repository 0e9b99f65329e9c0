extension ModelValidator {
    /// A property of an entity, attribute or relationship, for the checks common to both.
    struct Property {
        var kind: String
        var name: String
        var declaredBy: String
        var location: SourceLocation?

        var described: String { "\(kind) \(declaredBy).\(name)" }
    }

    /// Checks the names of `entity`'s own properties, and that none repeats another property's name,
    /// its own or inherited, exactly or after snake_case.
    mutating func checkProperties(of entity: Entity) {
        for attribute in entity.attributes {
            let what = "attribute \(entity.name).\(attribute.name)"
            checkName(attribute.name, what: what, at: attribute.location, isColumn: true)
            if let column = attribute.columnOverride {
                checkName(column, what: "column \"\(column)\" of \(what)", at: attribute.location, isColumn: true)
            }
            if let renamed = attribute.renamingIdentifier {
                checkName(renamed, what: "renamingIdentifier \"\(renamed)\" of \(what)", at: attribute.location)
            }
        }
        for relationship in entity.relationships {
            let what = "relationship \(entity.name).\(relationship.name)"
            checkName(relationship.name, what: what, at: relationship.location, isColumn: true)
            if let column = relationship.columnOverride {
                checkName(column, what: "column \"\(column)\" of \(what)", at: relationship.location, isColumn: true)
            }
            if let renamed = relationship.renamingIdentifier {
                checkName(renamed, what: "renamingIdentifier \"\(renamed)\" of \(what)", at: relationship.location)
            }
        }
        checkDuplicateProperties(of: entity)
    }

    private mutating func checkDuplicateProperties(of entity: Entity) {
        let inherited = graph.ancestors(of: entity.name).reversed().flatMap { properties(of: graph.byName[$0]) }
        let own = properties(of: entity).sorted {
            (($0.location?.line ?? 0), $0.kind, $0.name) < (($1.location?.line ?? 0), $1.kind, $1.name)
        }
        var earlier = inherited
        // Reserved and invalid names are reported by `checkName`; comparing them adds only noise.
        for property in own where SQLName.isIdentifier(property.name) && !SQLName.reservedColumns.contains(property.name.snakeCased) {
            if let same = earlier.first(where: { $0.name == property.name }) {
                reportedClashes.insert(Self.clashKey("property", same.described, property.described))
                if same.declaredBy == entity.name {
                    report(property.location, "\(property.described) has the same name as \(same.described).")
                } else {
                    report(property.location, "\(property.described) repeats the name of \(same.described), "
                        + "which \(entity.name) inherits.")
                }
            } else if let clash = earlier.first(where: { $0.name.snakeCased == property.name.snakeCased }) {
                report(property.location, "\(property.described) and \(clash.described) both map to the SQL name "
                    + "\"\(property.name.snakeCased)\"; rename one of them.")
                reportedClashes.insert(Self.clashKey("property", clash.described, property.described))
            }
            earlier.append(property)
        }
    }

    private func properties(of entity: Entity?) -> [Property] {
        guard let entity else { return [] }
        return entity.attributes.map { Property(kind: "attribute", name: $0.name, declaredBy: entity.name, location: $0.location) }
            + entity.relationships.map {
                Property(kind: "relationship", name: $0.name, declaredBy: entity.name, location: $0.location)
            }
    }
}
