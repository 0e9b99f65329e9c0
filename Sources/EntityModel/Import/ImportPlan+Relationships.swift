extension ImportPlan {
    /// Reads each join table as a to-many of the entity its name starts with: `artist_tracks`
    /// (`artist_id`, `track_id`) is `Artist.tracks`, with the inverse `Track.artists` where the model
    /// would keep the join table on `Artist`'s side (its side sorts first). A join table whose
    /// names the model would not derive (Prisma's `_CategoryToPost` with `A` and `B`) is a to-many
    /// of the entities its columns reference, named after them (`Category.posts`, `Post.categories`),
    /// with its own name and columns (`joinTable:`, `joinColumns:`); a unique index in place of a
    /// primary key is `joinKey: uniqueIndex`, and foreign keys `ON UPDATE` are `joinOnUpdate:`.
    mutating func readJoinTables() {
        for join in joinTables.sorted(by: { $0.name < $1.name }) {
            guard let (key, isUniqueIndex) = Self.pairKey(of: join) else { continue }
            let orders = [(key[0], key[1]), (key[1], key[0])]
            var fit: (found: (source: String, relationship: String, destination: String), order: (String, String))?
            for order in orders where fit == nil {
                fit = joinRelationship(join, source: order.0, destination: order.1).map { ($0, order) }
            }
            guard let (found, order) = fit ?? namedJoinRelationship(join, key: key) else {
                note(.notExpressed, "join table \(join.name)", "the entities its columns reference are not read")
                continue
            }
            if order != orders[0] {
                note(.adapted, "join table \(join.name)", "its \(isUniqueIndex ? "unique index" : "primary key") is (\(key.joined(separator: ", "))); "
                    + "the model's is (\(order.0), \(order.1))")
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
                Self.inverseName(of: source, relationship: found.relationship, destination: destination),
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
            let derived = Self.derivedJoinNames(owner: source, relationship: owning, destination: destination)
            if derived.table != join.name { owning.joinTableOverride = join.name }
            if [derived.columns.source, derived.columns.destination] != [order.0, order.1] { owning.joinColumnsOverride = [order.0, order.1] }
            if isUniqueIndex { owning.joinKey = .uniqueIndex }
            // (Hibernate's join tables have no index on the destination column.)
            owning.isIndexed = join.indexes.contains { $0.columns == [order.1] && !$0.isUnique && $0.method == "btree" && $0.predicate == nil }
            // (And their foreign keys delete with NO ACTION: Hibernate deletes the links itself.)
            let joinRules = Set(join.foreignKeys.map(\.onDelete))
            if joinRules.count == 1, let rule = joinRules.first.flatMap(Self.rule(for:)), rule != .cascade { owning.joinOnDelete = rule }
            // (Prisma's update with CASCADE.)
            let updateRules = Set(join.foreignKeys.map { $0.onUpdate ?? "NO ACTION" })
            if updateRules.count == 1, let rule = updateRules.first.flatMap(Self.rule(for:)), rule != .noAction { owning.joinOnUpdate = rule }
            drafts[sourceTable]!.relationships[source, default: []].append(owning)
            for key in join.foreignKeys where key.onDelete != (owning.joinOnDelete?.referentialAction.sql ?? "CASCADE")
                || (key.onUpdate ?? "NO ACTION") != (owning.joinOnUpdate?.referentialAction.sql ?? "NO ACTION") {
                note(.notExpressed, "foreign key on \(join.name) \(key.text)", "a join table's two foreign keys have one ON DELETE and one ON UPDATE")
            }
            for index in join.indexes where !(isUniqueIndex && index.isUnique && index.columns == key)
                && (index.columns != [order.1] || index.isUnique || index.method != "btree" || index.predicate != nil) {
                note(.notExpressed, "index \(index.name) on \(join.name) \(index.text)", "a join table has one index, on its destination column")
            }
        }
    }

    /// The name a join table's to-many gets on its destination: the source's name in the plural
    /// (`posts`), followed by `As<Relationship>` for a relationship of an entity to itself.
    private static func inverseName(of source: String, relationship: String, destination: String) -> String {
        ModelNaming.plural(source.prefix(1).lowercased() + source.dropFirst())
            + (source == destination ? "As" + relationship.prefix(1).uppercased() + relationship.dropFirst() : "")
    }

    /// The join table's name and columns the model derives for `relationship` of `owner`.
    private static func derivedJoinNames(owner: String, relationship: Relationship, destination: String)
        -> (table: String, columns: (source: String, destination: String)) {
        var plain = relationship
        plain.joinTableOverride = nil
        plain.joinColumnsOverride = nil
        plain.inverse = nil
        let mapper = RelationalMapper(graph: EntityGraph(owner == destination
            ? [Entity(name: owner, relationships: [plain])] : [Entity(name: owner, relationships: [plain]), Entity(name: destination)]))
        return (mapper.joinTableName(for: plain, declaredBy: owner), mapper.joinColumnNames(for: plain, declaredBy: owner))
    }

    /// The relationship a join table whose names the model would not derive stores: a to-many of
    /// the entity its first key column references, named after the other one in the plural
    /// (`Category.posts` for `_CategoryToPost`), or of the other one where that side sorts first
    /// (the model keeps a join table on the side whose (entity, relationship) sorts first).
    private func namedJoinRelationship(_ join: TableSnapshot, key: [String]) -> ((source: String, relationship: String, destination: String), (String, String))? {
        guard let first = referencedTable(of: key[0], in: join).flatMap({ drafts[$0] }),
              let second = referencedTable(of: key[1], in: join).flatMap({ drafts[$0] }) else { return nil }
        func relationship(of owner: EntityDraft, to destination: String) -> String {
            var taken = owner.takenNames
            return ModelNaming.unique(ModelNaming.plural(destination.prefix(1).lowercased() + destination.dropFirst()), in: &taken)
        }
        let forward = relationship(of: first, to: second.name)
        let backward = relationship(of: second, to: first.name)
        let inverse = Self.inverseName(of: first.name, relationship: forward, destination: second.name)
        if first.name == second.name || (first.name, forward) <= (second.name, inverse) {
            return ((first.name, forward, second.name), (key[0], key[1]))
        }
        return ((second.name, backward, first.name), (key[1], key[0]))
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
