import EntityModel

/// Computes the operations of an inferred step: matches the source schema's tables and columns
/// to the destination's through the ``Correspondence``, then emits renames, additions, type and
/// nullability changes, link and row moves, drops and constraint changes, in a safe order.
struct SchemaDiffer {
    /// The order operations run in: constraints that change go first, so that nothing blocks
    /// renames, type changes and data moves; then (in a mapped step) the mappings; then whatever
    /// destroys old rows, columns and tables; new constraints come last, once the data is in place.
    enum Phase: Int, CaseIterable, Comparable {
        case dropConstraints, renameTables, renameColumns, renameColumnsIntoPlace, renameConstraints, createTables, addColumns,
             alterColumns, moveData,
             // A mapped step's mappings and policies run here, while every source row and column still exists.
             backfill, deleteRows, dropColumns, dropTables,
             // New tables named as an old table the step drops (a relationship that is new although
             // it kept its name: its join table), made once that one is gone; they start empty.
             recreateTables,
             finishColumns, addConstraints, createIndexes
        static func < (lhs: Phase, rhs: Phase) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    let source: ModelVersion
    let destination: ModelVersion
    let correspondence: Correspondence
    /// Set for a fused diff: every adjacent step was inferred first, so each narrowing it contains
    /// was declared safe by the pair it belongs to (the fused ends alone may not declare it).
    var narrowingDeclaredBySteps = false
    let old: RelationalSchema
    let new: RelationalSchema

    /// Old table name → new table name.
    var tableMatch: [String: String] = [:]
    /// Old table name → (old column name → new column name).
    var columnMatch: [String: [String: String]] = [:]
    /// Old table name → (old column name → temporary name): columns moved out of the way because
    /// their name is taken in the destination (a dropped column whose name a new or renamed column
    /// takes, or one side of swapped renames).
    var displacedColumns: [String: [String: String]] = [:]
    /// New "table.column" filled by a link move: added nullable, made NOT NULL afterwards.
    var linkFedColumns: Set<String> = []
    /// Old "table.column" whose data moves elsewhere (links, rows): dropping it loses nothing.
    var movedAwayColumns: Set<String> = []
    /// Old tables whose every row moves elsewhere.
    var emptiedTables: Set<String> = []
    /// New tables that receive rows by a row move.
    var filledTables: Set<String> = []

    /// In a mapped step: destination tables whose rows or columns the mapping fills (a new
    /// required column may start empty; the validation stage checks it).
    var mappingFilledTables: Set<String> = []
    /// In a mapped step: "table.column" of new required columns without a default that no inferred
    /// move feeds: every mapping into the table must set them (``MappingModel/unfilledRequiredValues(_:)``).
    var columnsOnlyMappingsFill: Set<String> = []
    /// In a mapped step: "table.column" of existing columns that become required without a
    /// default: some mapping into the table must set them, or their NULLs stay.
    var columnsMadeRequiredForMappings: Set<String> = []

    /// Set for a way down: what it adds back, the way up that dropped it archived. A new required
    /// column without a default is then added nullable and made NOT NULL once the archive gave its
    /// values back (``requiredFromArchive``), rather than refused.
    var restoresFromArchive = false
    /// The new required columns the archive fills (see ``restoresFromArchive``).
    var requiredFromArchive: [ArchiveNames.RequiredColumn] = []
    /// The numeric columns a way down narrows in their integer digits, which take their type once
    /// the archive gave their values back (see ``restoresFromArchive``).
    var narrowedFromArchive: [ArchiveNames.NarrowedColumn] = []

    var phases: [Phase: [SchemaOperation]] = [:]
    /// Enum types rebuilt (their old type dropped after the tables) and dropped (``diffEnums()``).
    var rebuiltEnums: [EnumChange] = []
    var droppedEnums: [String] = []
    /// Where every source column, link storage and row set goes (see ``StepAccount``).
    var account = StepAccount()
    var reasons: [String] = []

    /// What the step destroys, from the account.
    var destructive: [DestructiveChange] { account.destructiveChanges }

    init(source: ModelVersion, destination: ModelVersion, correspondence: Correspondence) {
        self.source = source
        self.destination = destination
        self.correspondence = correspondence
        self.old = source.relationalSchema()
        self.new = destination.relationalSchema()
    }

    var orderedOperations: [SchemaOperation] { Phase.allCases.flatMap { phases[$0] ?? [] } }

    /// The operations of the phases before data moves, the data moves, and those after.
    var operationsAroundData: (before: [SchemaOperation], data: [SchemaOperation], after: [SchemaOperation]) {
        (Phase.allCases.filter { $0 < .moveData }.flatMap { phases[$0] ?? [] },
         phases[.moveData] ?? [],
         Phase.allCases.filter { $0 > .moveData }.flatMap { phases[$0] ?? [] })
    }

    mutating func emit(_ phase: Phase, _ operation: SchemaOperation) {
        phases[phase, default: []].append(operation)
    }

    mutating func run() throws {
        matchTables()
        matchColumns()
        planDisplacements()
        planLinkMoves()
        planRowMoves()
        diffEnums()
        diffSequences()
        for oldTable in old.tables {
            if let newName = tableMatch[oldTable.name], let newTable = new.table(named: newName) {
                diffTable(oldTable, newTable)
            } else {
                dropTable(oldTable)
            }
        }
        let matchedNew = Set(tableMatch.values)
        let dropped = Set(old.tables.map(\.name)).subtracting(tableMatch.keys)
        for newTable in new.tables where !matchedNew.contains(newTable.name) {
            createTable(newTable, phase: dropped.contains(newTable.name) ? .recreateTables : .createTables)
        }
        finishEnums()
        finishSequences()
        diffComments()
        if !reasons.isEmpty {
            throw PlanningError.stepNotPossible(from: source.name, to: destination.name, reasons: reasons)
        }
    }

    // MARK: Tables

    /// Entity tables match when their root entities correspond; a table whose root gained or lost
    /// a parent matches the new root's table; join tables match by their relationship pair.
    mutating func matchTables() {
        var claimed: Set<String> = []
        func claim(_ oldName: String, _ newName: String?) {
            guard let newName, !claimed.contains(newName), tableMatch[oldName] == nil else { return }
            tableMatch[oldName] = newName
            claimed.insert(newName)
        }
        let entityTables = old.tables.compactMap { table -> (Table, String)? in
            if case let .entity(root) = table.origin { return (table, root) } else { return nil }
        }
        // Same root.
        for (table, root) in entityTables {
            guard let mapped = correspondence.entities[root], destination.rootEntity(of: mapped) == mapped else { continue }
            claim(table.name, new.table(forEntity: mapped)?.name)
        }
        // The root gained a parent, or lost its parent: follow the first surviving member.
        for (table, root) in entityTables where tableMatch[table.name] == nil {
            guard let member = source.hierarchy(of: root).first(where: { correspondence.entities[$0] != nil }),
                  let mapped = correspondence.entities[member] else { continue }
            claim(table.name, new.table(forEntity: destination.rootEntity(of: mapped))?.name)
        }
        // Join tables, whichever side owns them now.
        for table in old.tables {
            guard case let .joinTable(entity, relationship) = table.origin else { continue }
            let pair = mappedPair(entity: entity, relationship: relationship)
            let candidate = new.tables.first { newTable in
                guard case let .joinTable(e, r) = newTable.origin else { return false }
                return pair.contains(Correspondence.Property(entity: e, name: r))
            }
            claim(table.name, candidate?.name)
        }
    }

    /// The destination ends (the relationship and its inverse) of a source relationship.
    func mappedPair(entity: String, relationship: String) -> Set<Correspondence.Property> {
        var ends: Set<Correspondence.Property> = []
        if let mapped = correspondence.relationships[.init(entity: entity, name: relationship)] { ends.insert(mapped) }
        if let declared = source.entity(named: entity)?.relationship(named: relationship), let inverse = declared.inverse,
           let mapped = correspondence.relationships[.init(entity: declared.destination, name: inverse)] {
            ends.insert(mapped)
        }
        var withInverses = ends
        for end in ends {
            if let declared = destination.entity(named: end.entity)?.relationship(named: end.name), let inverse = declared.inverse {
                withInverses.insert(.init(entity: declared.destination, name: inverse))
            }
        }
        return withInverses
    }

    /// Columns of matched tables match by their mapped origin; in join tables, by the table they point at.
    mutating func matchColumns() {
        for (oldName, newName) in tableMatch {
            guard let oldTable = old.table(named: oldName), let newTable = new.table(named: newName) else { continue }
            var matches: [String: String] = [:]
            var taken: Set<String> = []
            for column in oldTable.columns {
                var candidate = correspondence.column(in: newTable, matching: column.origin)
                if candidate == nil, case .joinTable = oldTable.origin,
                   let target = oldTable.foreignKeys.first(where: { $0.columns == [column.name] })?.referencedTable {
                    let mappedTarget = tableMatch[target] ?? target
                    candidate = newTable.columns.first { newColumn in
                        !taken.contains(newColumn.name)
                            && newTable.foreignKeys.contains { $0.columns == [newColumn.name] && $0.referencedTable == mappedTarget }
                    }
                }
                if let candidate, !taken.contains(candidate.name) {
                    matches[column.name] = candidate.name
                    taken.insert(candidate.name)
                }
            }
            columnMatch[oldName] = matches
        }
    }

    /// The name a source table has once the renames ran.
    func currentName(ofOldTable table: String) -> String { tableMatch[table] ?? table }

    /// The name a source column has once the renames ran.
    func currentName(ofOldColumn column: String, in table: String) -> String {
        columnMatch[table]?[column] ?? displacedColumns[table]?[column] ?? column
    }

    /// Finds the columns that must step aside before renames and additions: an old column whose
    /// name the destination uses for another column. Renamed ones go through a temporary name;
    /// dropped ones are dropped under it.
    mutating func planDisplacements() {
        for (oldName, newName) in tableMatch {
            guard let oldTable = old.table(named: oldName), let newTable = new.table(named: newName) else { continue }
            let matches = columnMatch[oldName] ?? [:]
            let oldNames = Set(oldTable.columns.map(\.name))
            let newNames = Set(newTable.columns.map(\.name))
            var displaced: [String: String] = [:]
            for (index, column) in oldTable.columns.enumerated() {
                let target = matches[column.name]
                let blocksAnother = target == nil ? newNames.contains(column.name) : (target != column.name && oldNames.contains(target!))
                if blocksAnother { displaced[column.name] = "_tm_\(index)_" + column.name.prefix(40) }
            }
            if !displaced.isEmpty { displacedColumns[oldName] = displaced }
        }
    }

    mutating func createTable(_ table: Table, phase: Phase = .createTables) {
        emit(phase, .createTable(table))
        for foreignKey in table.foreignKeys { emit(.addConstraints, .addForeignKey(table: table.name, foreignKey)) }
        for index in table.indexes { emit(.createIndexes, .createIndex(table: table.name, index)) }
    }

    mutating func dropTable(_ table: Table) {
        // Foreign keys first, so tables can drop in any order.
        for foreignKey in table.foreignKeys { emit(.dropConstraints, .dropConstraint(table: table.name, name: foreignKey.name, ownsIndex: false)) }
        emit(.dropTables, .dropTable(table.name))
        let what: String
        let item: StepAccount.Item
        switch table.origin {
        case let .entity(root):
            what = "drops entity table \(table.name) (\(source.hierarchy(of: root).joined(separator: ", "))) and its rows"
            item = .init(kind: .rows, table: table.name, property: root)
        case let .joinTable(entity, relationship):
            what = "drops join table \(table.name): the links of \(entity).\(relationship)"
            item = .init(kind: .links, table: table.name, property: "\(entity).\(relationship)")
        }
        if emptiedTables.contains(table.name) {
            account.append(item, .transformed(by: "moved to their new storage (inferred)"), reversible: true)
        } else {
            account.append(item, .destroyed(DestructiveChange(kind: .dropTable, table: table.name, detail: what)))
        }
    }
}
