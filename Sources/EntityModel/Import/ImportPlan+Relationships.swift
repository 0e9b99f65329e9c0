extension ImportPlan {
    /// Reads each join table as a to-many of the entity its name starts with: `artist_tracks`
    /// (`artist_id`, `track_id`) is `Artist.tracks`, with the inverse `Track.artists` where the model
    /// would keep the join table on `Artist`'s side (its side sorts first). A join table whose
    /// names the model would not derive is noted.
    mutating func readJoinTables() {
        for join in joinTables.sorted(by: { $0.name < $1.name }) {
            let key = join.primaryKey ?? []
            let orders = [(key[0], key[1]), (key[1], key[0])]
            var fit: (found: (source: String, relationship: String, destination: String), order: (String, String))?
            for order in orders where fit == nil {
                fit = joinRelationship(join, source: order.0, destination: order.1).map { ($0, order) }
            }
            guard let (found, order) = fit else {
                note(.notExpressed, "join table \(join.name)", "the model names a join table <owner>_<relationship> with the columns "
                    + "<owner>_id and <destination>_id (owner and destination in snake_case), and these names do not fit")
                continue
            }
            if order != orders[0] {
                note(.adapted, "join table \(join.name)", "its primary key is (\(key.joined(separator: ", "))); the model's is (\(order.0), \(order.1))")
            }
            guard let sourceTable = referencedTable(of: order.0, in: join), let destinationTable = referencedTable(of: order.1, in: join) else { continue }
            guard drafts[sourceTable]!.takenNames.insert(found.relationship.snakeCased).inserted else {
                note(.notExpressed, "join table \(join.name)", "\(found.source) already has a property \(found.relationship)")
                continue
            }
            let source = found.source, destination = found.destination
            var inverse: String?
            var destinationDraft = drafts[destinationTable]!
            let candidate = ModelNaming.unique(
                ModelNaming.plural(source.prefix(1).lowercased() + source.dropFirst()) + (source == destination ? "As" + found.relationship.prefix(1).uppercased() + found.relationship.dropFirst() : ""),
                in: &destinationDraft.takenNames
            )
            if (source, found.relationship) <= (destination, candidate) {
                inverse = candidate
                destinationDraft.relationships[destination, default: []].append(Relationship(
                    name: candidate, destination: source, isToMany: true, inverse: found.relationship
                ))
            } else {
                destinationDraft.takenNames.remove(candidate.snakeCased)
            }
            drafts[destinationTable] = destinationDraft
            var owning = Relationship(name: found.relationship, destination: destination, isToMany: true, inverse: inverse)
            // (Hibernate's join tables have no index on the destination column.)
            owning.isIndexed = join.indexes.contains { $0.columns == [order.1] && !$0.isUnique && $0.method == "btree" && $0.predicate == nil }
            // (And their foreign keys delete with NO ACTION: Hibernate deletes the links itself.)
            let joinRules = Set(join.foreignKeys.map(\.onDelete))
            if joinRules.count == 1, let rule = joinRules.first.flatMap(Self.rule(for:)), rule != .cascade { owning.joinOnDelete = rule }
            drafts[sourceTable]!.relationships[source, default: []].append(owning)
            for key in join.foreignKeys where key.onDelete != (owning.joinOnDelete?.referentialAction.sql ?? "CASCADE") {
                note(.notExpressed, "foreign key on \(join.name) \(key.text)", "a join table's foreign keys are ON DELETE CASCADE")
            }
            for index in join.indexes where index.columns != [order.1] || index.isUnique || index.method != "btree" || index.predicate != nil {
                note(.notExpressed, "index \(index.name) on \(join.name) \(index.text)", "a join table has one index, on its destination column")
            }
        }
    }

    /// The relationship a join table stores, if the model's naming rules give exactly its names:
    /// its owner is the entity (of the hierarchy in the table `source` references) whose snake_case
    /// starts the join table's name, its destination one of the hierarchy `destination` references.
    private func joinRelationship(_ join: TableSnapshot, source: String, destination: String) -> (source: String, relationship: String, destination: String)? {
        guard let sourceTable = referencedTable(of: source, in: join), let destinationTable = referencedTable(of: destination, in: join),
              let owners = drafts[sourceTable]?.entityNames, let targets = drafts[destinationTable]?.entityNames else { return nil }
        for owner in owners.sorted(by: { $0.snakeCased.count > $1.snakeCased.count }) {
            let prefix = owner.snakeCased + "_"
            guard join.name.hasPrefix(prefix), let relationship = ModelNaming.name(forSQLName: String(join.name.dropFirst(prefix.count)), upper: false) else {
                continue
            }
            for target in targets {
                let declared = Relationship(name: relationship, destination: target, isToMany: true)
                let mapper = RelationalMapper(graph: EntityGraph([Entity(name: owner, relationships: [declared]), Entity(name: target)]))
                let columns = mapper.joinColumnNames(for: declared, declaredBy: owner)
                if mapper.joinTableName(for: declared, declaredBy: owner) == join.name, columns.source == source, columns.destination == destination {
                    return (owner, relationship, target)
                }
            }
        }
        return nil
    }

    /// Names the inverse of each to-one read from a foreign key: `Recipe.ingredients` for
    /// `RecipeIngredient.recipe`… that is, the holder's name in the plural (`recipeIngredients`),
    /// followed by `As<Relationship>` where one entity holds several keys to the same one, or a key
    /// to itself. The inverse carries the delete rule the foreign key's `ON DELETE` implements.
    mutating func nameInverses() {
        let groups = Dictionary(grouping: pendingInverses) { "\($0.holder)→\($0.destinationTable)" }
        for pending in pendingInverses {
            var destination = drafts[pending.destinationTable]!
            let destinationName = destination.name
            let lower = pending.holder.prefix(1).lowercased() + pending.holder.dropFirst()
            let ambiguous = groups["\(pending.holder)→\(pending.destinationTable)"]!.count > 1 || pending.holderRoot == destinationName
            let base = (pending.isOneToOne ? lower : ModelNaming.plural(lower))
                + (ambiguous ? "As" + pending.relationship.prefix(1).uppercased() + pending.relationship.dropFirst() : "")
            let name = ModelNaming.unique(base, in: &destination.takenNames)
            if pending.isOneToOne, (pending.holder, pending.relationship) > (destinationName, name) {
                destination.takenNames.remove(name.snakeCased)
                drafts[pending.destinationTable] = destination
                note(.notExpressed, pending.element, "a one-to-one keeps its key on the side whose (entity, relationship) sorts first, "
                    + "and \(pending.holder) sorts after \(destinationName); the to-one is imported without its inverse")
                continue
            }
            destination.relationships[destinationName, default: []].append(Relationship(
                name: name, destination: pending.holder, isToMany: !pending.isOneToOne, inverse: pending.relationship,
                deleteRule: pending.deleteRule
            ))
            drafts[pending.destinationTable] = destination
            let holderTable = drafts.first { $0.value.name == pending.holderRoot }!.key
            if let index = drafts[holderTable]!.relationships[pending.holder]?.firstIndex(where: { $0.name == pending.relationship }) {
                drafts[holderTable]!.relationships[pending.holder]![index].inverse = name
            }
        }
    }
}
