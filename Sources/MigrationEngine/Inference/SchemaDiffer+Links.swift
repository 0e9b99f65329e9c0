import EntityModel
import TypedSQL

extension SchemaDiffer {
    /// Where one relationship pair keeps its links in one version, and which end's rows are the
    /// storage's first side.
    struct PairStorage {
        var storage: LinkStorage
        var firstEnd: Correspondence.Property
        /// Whether each first-side row holds at most one link (a foreign key column).
        var holdsOneLink: Bool
    }

    static func storage(of entity: String, _ relationship: String, in version: ModelVersion, schema: RelationalSchema) -> PairStorage? {
        guard let declared = version.entity(named: entity)?.relationship(named: relationship) else { return nil }
        let inverse = declared.inverse.flatMap { version.entity(named: declared.destination)?.relationship(named: $0) }
        let ends = [Correspondence.Property(entity: entity, name: relationship)]
            + (inverse.map { [Correspondence.Property(entity: declared.destination, name: $0.name)] } ?? [])
        // A foreign key column on either end.
        for end in ends {
            guard let table = schema.table(forEntity: version.rootEntity(of: end.entity)),
                  let column = table.column(withOrigin: .relationship(entity: end.entity, relationship: end.name)) else { continue }
            return PairStorage(storage: .foreignKey(table: table.name, column: column.name), firstEnd: end, holdsOneLink: true)
        }
        // A join table owned by either end.
        for end in ends {
            guard let table = schema.joinTable(forEntity: end.entity, relationship: end.name),
                  let first = table.column(withOrigin: .joinSource(entity: end.entity, relationship: end.name)),
                  let second = table.column(withOrigin: .joinDestination(entity: end.entity, relationship: end.name)) else { continue }
            return PairStorage(storage: .joinTable(table: table.name, first: first.name, second: second.name), firstEnd: end, holdsOneLink: false)
        }
        return nil
    }

    /// Moves the links of every relationship whose storage changes (to-one ↔ to-many,
    /// to-many ↔ many-to-many), so no link is lost wherever the new shape can hold it.
    mutating func planLinkMoves() {
        var seen: Set<Set<Correspondence.Property>> = []
        for entity in source.entities {
            for relationship in entity.relationships {
                let end = Correspondence.Property(entity: entity.name, name: relationship.name)
                var pair: Set<Correspondence.Property> = [end]
                if let inverse = relationship.inverse { pair.insert(.init(entity: relationship.destination, name: inverse)) }
                guard seen.insert(pair).inserted,
                      let before = Self.storage(of: entity.name, relationship.name, in: source, schema: old) else { continue }
                let mappedEnds = mappedPair(entity: entity.name, relationship: relationship.name)
                let destinationVersion = destination, destinationSchema = new
                guard let target = mappedEnds.sorted(by: { ($0.entity, $0.name) < ($1.entity, $1.name) })
                        .compactMap({ Self.storage(of: $0.entity, $0.name, in: destinationVersion, schema: destinationSchema) }).first else { continue }
                if translated(before.storage) == target.storage { continue }
                if case let .joinTable(table, first, second)? = translated(before.storage), target.storage == .joinTable(table: table, first: second, second: first) { continue }

                let swapped = correspondence.relationships[before.firstEnd] != target.firstEnd
                emit(.moveData, .moveLinks(LinkMove(from: current(before.storage), to: target.storage, swapped: swapped)))
                switch before.storage {
                case let .foreignKey(table, column): movedAwayColumns.insert(table + "." + column)
                case let .joinTable(table, _, _): emptiedTables.insert(table)
                }
                if case let .foreignKey(table, column) = target.storage {
                    linkFedColumns.insert(table + "." + column)
                    if !(before.holdsOneLink && !swapped) {
                        let item: StepAccount.Item
                        switch before.storage {
                        case let .foreignKey(oldTable, oldColumn):
                            item = .init(kind: .column, table: oldTable, column: oldColumn, property: "\(before.firstEnd.entity).\(before.firstEnd.name)")
                        case let .joinTable(oldTable, _, _):
                            item = .init(kind: .links, table: oldTable, property: "\(before.firstEnd.entity).\(before.firstEnd.name)",
                                         rows: Self.linksNotHeld(current(before.storage), swapped: swapped))
                        }
                        account.append(item, .destroyed(DestructiveChange(kind: .dropLinks, table: table, column: column,
                            detail: "\(target.firstEnd.entity).\(target.firstEnd.name) becomes to-one: where a row had several links, only the one to the lowest id is kept")))
                    }
                }
            }
        }
    }

    /// The links of a join table (`storage`, as named while data moves) that a foreign key cannot
    /// hold when they move into it: all but the lowest per row (``LinkMove``). Only those are lost
    /// and archived; archiving the one it holds too would give it back beside the link the app set
    /// since, when a way up makes the relationship to-many again.
    static func linksNotHeld(_ storage: LinkStorage, swapped: Bool) -> StepAccount.RowSet? {
        guard case let .joinTable(table, first, second) = storage else { return nil }
        let (row, link) = swapped ? (second, first) : (first, second)
        return StepAccount.RowSet("EXISTS (SELECT FROM \(table: table) AS tm_o WHERE tm_o.\(id: row) = source.\(id: row) AND tm_o.\(id: link) < source.\(id: link))" as SQL,
                                  words: "the links a row has beside its lowest")
    }

    /// The storage in destination names, when its table and columns survive.
    private func translated(_ storage: LinkStorage) -> LinkStorage? {
        switch storage {
        case let .foreignKey(table, column):
            guard let newTable = tableMatch[table], let newColumn = columnMatch[table]?[column] else { return nil }
            return .foreignKey(table: newTable, column: newColumn)
        case let .joinTable(table, first, second):
            guard let newTable = tableMatch[table], let a = columnMatch[table]?[first], let b = columnMatch[table]?[second] else { return nil }
            return .joinTable(table: newTable, first: a, second: b)
        }
    }

    /// The storage as it is named while data moves: tables renamed, its columns not yet dropped.
    private func current(_ storage: LinkStorage) -> LinkStorage {
        switch storage {
        case let .foreignKey(table, column):
            return .foreignKey(table: currentName(ofOldTable: table), column: currentName(ofOldColumn: column, in: table))
        case let .joinTable(table, first, second):
            return .joinTable(table: currentName(ofOldTable: table), first: currentName(ofOldColumn: first, in: table),
                              second: currentName(ofOldColumn: second, in: table))
        }
    }
}
