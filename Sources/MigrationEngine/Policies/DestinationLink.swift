import EntityModel

/// What stores a destination relationship that ``PolicyContext/link(_:_:from:to:)`` sets:
/// a foreign key on one side, or a join table.
enum DestinationLink {
    /// `update(holder, id: from, [key: to])`, or with the ends swapped when `reversed`.
    case foreignKey(holder: String, key: String, reversed: Bool)
    /// A row `(first, second)` of `table`, with the ends swapped when `reversed`.
    case joinTable(table: String, first: String, second: String, reversed: Bool)

    /// The storage of `entity.relationship` in `version`, whose tables are `schema`.
    init(_ entity: String, _ relationship: String, in version: ModelVersion, schema: RelationalSchema) throws {
        guard let (declaredBy, declared) = version.allRelationships(of: entity).first(where: { $0.relationship.name == relationship }) else {
            throw PolicyUsageError("\(entity) in \(version.name) has no relationship \"\(relationship)\"")
        }
        let inverse = declared.inverse.flatMap { name in
            version.allRelationships(of: declared.destination).first { $0.relationship.name == name }
        }
        if !declared.isToMany {
            let holdsKey = schema.table(forEntity: version.rootEntity(of: declaredBy))?
                .column(withOrigin: .relationship(entity: declaredBy, relationship: relationship)) != nil
            if holdsKey {
                self = .foreignKey(holder: entity, key: relationship, reversed: false)
            } else if let inverse, !inverse.relationship.isToMany {
                // A one-to-one whose key is on the other side.
                self = .foreignKey(holder: declared.destination, key: inverse.relationship.name, reversed: true)
            } else {
                throw PolicyUsageError("\(entity).\(relationship) holds no foreign key in \(version.name)")
            }
            return
        }
        if let inverse, !inverse.relationship.isToMany {
            self = .foreignKey(holder: declared.destination, key: inverse.relationship.name, reversed: true)
            return
        }
        // A join table, owned by this side or by the inverse.
        var found: (Table, reversed: Bool)?
        for table in schema.tables {
            guard case let .joinTable(owner, ownerRelationship) = table.origin else { continue }
            if owner == declaredBy, ownerRelationship == relationship { found = (table, false); break }
            if let inverse, owner == inverse.declaredBy, ownerRelationship == inverse.relationship.name { found = (table, true); break }
        }
        guard let (table, reversed) = found,
              let first = table.columns.first(where: { if case .joinSource = $0.origin { return true } else { return false } }),
              let second = table.columns.first(where: { if case .joinDestination = $0.origin { return true } else { return false } }) else {
            throw PolicyUsageError("\(entity).\(relationship) has no join table in \(version.name)")
        }
        self = .joinTable(table: table.name, first: first.name, second: second.name, reversed: reversed)
    }
}
