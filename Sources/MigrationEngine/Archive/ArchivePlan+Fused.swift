import EntityModel

extension ArchivePlan {
    /// A fused step's plan: each value is keyed by the one adjacent pair of the run whose change
    /// took it, and named as that pair's source version names it, exactly as the single steps
    /// would have archived it. Nil when a value cannot be given to exactly one pair (two pairs of
    /// the run change it): the planner then runs those pairs one by one instead of fused.
    ///
    /// - Parameter pairAccounts: each pair's own account, in order (the single steps' accounts).
    init?(fused account: StepAccount, versions: [ModelVersion], direction: MigrationDirection, pairAccounts: [StepAccount],
          restores: [PairRestore], family: ModelFamily?) {
        let attribution = FusedAttribution(versions: versions, direction: direction, pairAccounts: pairAccounts)
        self.init(account: account, versions: versions, restores: restores, family: family) { items, plan in
            attribution.attribute(items, names: plan.names)
        }
    }
}

extension ArchivePlan {
    /// Whether a run of inferred pairs may be fused as far as the archive goes: a fused step
    /// restores every pair's entries at its end, so once an earlier pair restores something, no
    /// later pair of the run may move links or rows (they read storage a restore may fill), nor
    /// fill, cast or constrain (a backfill, NOT NULL, a check or unique constraint) a table and
    /// column that an earlier pair's restore writes, as the pairs run one by one would apply it to
    /// the restored values. Compared in the run's last version's names.
    ///
    /// - Parameter reverseAccounts: for each pair, the account of the pair crossed the other way.
    static func restoresAllowFusion(of pairs: [InferredChanges], direction: MigrationDirection, reverseAccounts: [StepAccount?]) -> Bool {
        guard !pairs.isEmpty else { return true }
        let versions = [pairs[0].source] + pairs.map(\.destination)
        /// A version's `table.column` (`table.` for a whole table) in the last version's names.
        func atEnd(_ key: (table: String, column: String?), from index: Int) -> String? {
            let translation = NameTranslation(along: Array(versions[index...]), direction: direction)
            guard let column = key.column else { return translation.table(key.table).map { $0 + "." } }
            return translation.column(column, of: key.table).map { $0.table + "." + $0.column }
        }
        // Rows a later pair deletes lose the links and rows an earlier pair moved to new storage
        // for them; run one by one, the archive keeps those from their new storage.
        if let deleting = pairs.lastIndex(where: { $0.operations.contains { if case .deleteEntityRows = $0 { true } else { false } } }),
           pairs[..<deleting].contains(where: { $0.operations.contains { if case .moveLinks = $0 { true } else if case .moveRows = $0 { true } else { false } } }) {
            return false
        }
        if direction == .down, makesARequiredColumnALaterPairAdds(along: versions, atEnd: atEnd) { return false }
        var restored: Set<String> = []
        var restoredByVersion: [RestoredValues] = []
        for (index, pair) in pairs.enumerated() {
            // What this pair archives on its own, against what earlier pairs' restores write: a
            // fused step copies before it restores, so it would archive the values as they were
            // before the restore (rows given back at its end, links given back to a column a later
            // pair drops again), and they would be lost. Run one by one, each pair archives what the
            // previous one gave back.
            if !restoredByVersion.isEmpty,
               restoredByVersion.contains(where: { $0.meet(items(account: pair.account, names: pair.account.names ?? ArchiveNames(), sourceSchema: versions[index].relationalSchema()),
                                                           at: index, along: versions, direction: direction) }) {
                return false
            }
            // What this pair changes, against what earlier pairs' restores write.
            if !restored.isEmpty {
                // Links and rows a later pair moves read storage an earlier restore may fill.
                if pair.operations.contains(where: { if case .moveLinks = $0 { true } else if case .moveRows = $0 { true } else { false } }) { return false }
                for target in pair.restoreSensitiveTargets {
                    guard let key = atEnd(target, from: index + 1) else { continue }
                    let table = String(key[..<key.firstIndex(of: ".")!]) + "."
                    if restored.contains(key) || restored.contains(table) || (key == table && restored.contains { $0.hasPrefix(table) }) { return false }
                }
            }
            guard let reverse = reverseAccounts.indices.contains(index) ? reverseAccounts[index] : nil else { continue }
            let given = items(account: reverse, names: reverse.names ?? ArchiveNames(), sourceSchema: pair.destination.relationalSchema())
            for item in given {
                if let key = atEnd((item.table, item.column), from: index + 1) { restored.insert(key) }
            }
            if !given.isEmpty { restoredByVersion.append(RestoredValues(version: index + 1, items: given)) }
        }
        return true
    }

    /// What one pair of a run gives back, named in the version it gives them back to.
    struct RestoredValues {
        let version: Int
        let items: [Item]

        /// Whether `archived` (what the pair starting at version `index` archives, in that version's
        /// names) takes any of these values: a restored column itself, or any column of a table
        /// whose rows are given back. A restored table or column that no longer exists there was
        /// dropped by a pair in between, which archived it: that meets too.
        func meet(_ archived: [Item], at index: Int, along versions: [ModelVersion], direction: MigrationDirection) -> Bool {
            guard !archived.isEmpty else { return false }
            let translation = NameTranslation(along: Array(versions[version...index]), direction: direction)
            for item in items {
                guard let table = translation.table(item.table) else { return true }
                if let column = item.column {
                    guard let (_, now) = translation.column(column, of: item.table) else { return true }
                    if archived.contains(where: { $0.table == table && ($0.column == nil || $0.column == now) }) { return true }
                } else if archived.contains(where: { $0.table == table }) {
                    return true
                }
            }
            return false
        }
    }
}

extension InferredChanges {
    /// The tables and columns (destination names, as the operations name them) whose rows the step
    /// moves, fills, casts, deletes or constrains; a column nil for the whole table.
    var restoreSensitiveTargets: [(table: String, column: String?)] {
        operations.compactMap { operation -> (String, String?)? in
            switch operation {
            case let .backfill(table, column, _, _), let .alterType(table, column, _), let .setNullable(table, column, false):
                return (table, column)
            case let .addCheck(table, _), let .addUnique(table, _), let .deleteEntityRows(table, _), let .renameDiscriminatorValue(table, _, _):
                return (table, nil)
            case let .moveLinks(move):
                switch move.to {
                case let .foreignKey(table, column): return (table, column)
                case let .joinTable(table, _, _): return (table, nil)
                }
            case let .moveRows(move):
                return (move.toTable, nil)
            default:
                return nil
            }
        }
    }
}

/// Gives each value a fused step archives to the pair of the run that takes it.
struct FusedAttribution {
    let versions: [ModelVersion]
    let direction: MigrationDirection
    /// The run's first version's names → each pair's source version's (index: the pair).
    let forward: [NameTranslation]
    /// The `table.column` (`table.` for rows) each pair archives on its own, in its source's names.
    let pairKeys: [Set<String>]

    init(versions: [ModelVersion], direction: MigrationDirection, pairAccounts: [StepAccount]) {
        self.versions = versions
        self.direction = direction
        forward = (0..<versions.count - 1).map { NameTranslation(along: Array(versions[0...$0]), direction: direction) }
        pairKeys = pairAccounts.enumerated().map { index, account in
            Set(ArchivePlan.items(account: account, names: account.names ?? ArchiveNames(), sourceSchema: versions[index].relationalSchema()).map(\.key))
        }
    }

    var source: RelationalSchema { versions[0].relationalSchema() }

    /// The items, each given its pair and names (whole rows split where their columns or entities
    /// belong to different pairs); nil if one cannot be given to exactly one pair.
    func attribute(_ items: [ArchivePlan.Item], names: ArchiveNames) -> [ArchivePlan.Item]? {
        var result: [ArchivePlan.Item] = []
        for item in items {
            if let column = item.column {
                guard let attributed = attribute(item, column: column) else { return nil }
                result.append(attributed)
            } else if let entities = item.entities {
                guard let split = attribute(item, entities: entities) else { return nil }
                result += split
            } else {
                let candidates = pairKeys.indices.filter { pair in forward[pair].table(item.table).map { pairKeys[pair].contains($0 + ".") } ?? false }
                guard candidates.count == 1, let rows = wholeRows(item, pair: candidates[0]) else { return nil }
                result += rows
            }
        }
        return result
    }

    /// The one pair that archives this column on its own.
    private func attribute(_ item: ArchivePlan.Item, column: String) -> ArchivePlan.Item? {
        guard let pair = pairTaking(column, of: item.table, before: pairKeys.count),
              let (table, recorded) = forward[pair].column(column, of: item.table) else { return nil }
        var attributed = item
        attributed.pair = pair
        attributed.recordedTable = table
        attributed.recordedColumn = recorded
        // A link a later pair archives keeps its target as that pair's single step would keep it.
        if pair > 0, let linking = source.table(named: item.table), let (target, _) = LinkTarget.reference(by: column, of: linking, in: source) {
            guard let keys = targetKeys(of: target, link: (table, recorded), pair: pair) else { return nil }
            attributed.targetKeys = keys
        }
        return attributed
    }

    /// The identifying columns of `target` (the table a link of the run's first version points at)
    /// as pair `pair`'s source version has them, each with its first version's name: what that
    /// pair's single step takes of the link's target (``LinkTarget``), read at the fused step's
    /// start. Nil where it cannot be read there: the link points elsewhere at that version, or an
    /// identifying column is new since the first version, retyped, or written by an earlier pair of
    /// the run (a backfill, an overwrite, rows deleted); the pairs then run one by one.
    private func targetKeys(of target: Table, link: (table: String, column: String), pair: Int) -> [ArchivePlan.RowKey]? {
        let schema = versions[pair].relationalSchema()
        guard let linking = schema.table(named: link.table), let (there, _) = LinkTarget.reference(by: link.column, of: linking, in: schema),
              forward[pair].table(target.name) == there.name else { return nil }
        func writtenBefore(_ column: String) -> Bool {
            (0..<pair).contains { earlier in
                forward[earlier].table(target.name).map { pairKeys[earlier].contains($0 + ".") } == true
                    || forward[earlier].column(column, of: target.name).map { pairKeys[earlier].contains($0.table + "." + $0.column) } == true
            }
        }
        var keys: [ArchivePlan.RowKey] = []
        for name in LinkTarget.identifyingColumns(of: there) {
            guard let first = target.columns.first(where: { column in
                forward[pair].column(column.name, of: target.name).map { $0.table == there.name && $0.column == name } == true
            }), first.type == there.column(named: name)?.type, !writtenBefore(first.name) else { return nil }
            keys.append(.init(column: first.name, key: name))
        }
        return keys
    }

    private func pairTaking(_ column: String, of table: String, before end: Int) -> Int? {
        let candidates = (0..<end).filter { pair in
            guard let (name, recorded) = forward[pair].column(column, of: table) else { return false }
            return pairKeys[pair].contains(name + "." + recorded)
        }
        guard candidates.count == 1, keepsType(column, of: table, until: candidates[0]) else { return nil }
        return candidates[0]
    }

    /// Whether the column's type at the pair's source is its type now, or wider: the archived
    /// value (taken now) then casts to it as the single steps' value would.
    private func keepsType(_ column: String, of table: String, until pair: Int) -> Bool {
        guard let type = source.table(named: table)?.column(named: column)?.type else { return false }
        guard let (name, recorded) = forward[pair].column(column, of: table),
              let later = versions[pair].relationalSchema().table(named: name)?.column(named: recorded)?.type else { return false }
        return later == type || TypeChange(from: type, to: later) == .widening
    }

    /// Rows of a table that pair `pair` drops (or deletes): its columns as that pair's source has
    /// them; a column an earlier pair dropped goes to that pair, on its own.
    private func wholeRows(_ item: ArchivePlan.Item, pair: Int) -> [ArchivePlan.Item]? {
        guard let table = source.table(named: item.table), let recordedTable = forward[pair].table(item.table) else { return nil }
        var rows = item
        rows.pair = pair
        rows.recordedTable = recordedTable
        rows.rowKeys = []
        var earlier: [ArchivePlan.Item] = []
        for column in table.columns {
            if let (_, recorded) = forward[pair].column(column.name, of: table.name) {
                // A column an earlier pair changes (a backfill, a cast) would be archived with its
                // value from before that change: the pairs run one by one instead.
                guard keepsType(column.name, of: table.name, until: pair),
                      !(0..<pair).contains(where: { earlier in
                          forward[earlier].column(column.name, of: table.name).map { pairKeys[earlier].contains($0.table + "." + $0.column) } ?? false
                      }) else { return nil }
                rows.rowKeys.append(.init(column: column.name, key: recorded))
            } else if item.entities == nil {
                // Dropped by an earlier pair of the run, which archives it on its own.
                guard let dropping = pairTaking(column.name, of: table.name, before: pair),
                      let (name, recorded) = forward[dropping].column(column.name, of: table.name) else { return nil }
                var value = ArchivePlan.Item(table: table.name, column: column.name, rows: nil, narrowing: false)
                value.pair = dropping
                value.recordedTable = name
                value.recordedColumn = recorded
                earlier.append(value)
            }
        }
        return earlier + [rows]
    }

    /// Rows of removed entities of a table that stays, grouped by the pair that removes each entity.
    private func attribute(_ item: ArchivePlan.Item, entities: [String]) -> [ArchivePlan.Item]? {
        var byPair: [Int: [String]] = [:]
        for entity in entities {
            guard let pair = pair(removing: entity) else { return nil }
            byPair[pair, default: []].append(entity)
        }
        var result: [ArchivePlan.Item] = []
        for (pair, removed) in byPair.sorted(by: { $0.key < $1.key }) {
            guard let name = forward[pair].table(item.table), pairKeys[pair].contains(name + "."),
                  var rows = wholeRows(item, pair: pair) else { return nil }
            rows[rows.count - 1].entities = removed
            rows[rows.count - 1].rows = "source.\"entity\" IN (\(literals: removed))"
            result += rows
        }
        return result
    }

    /// The pair of the run after which `entity` (a first-version name) no longer exists.
    private func pair(removing entity: String) -> Int? {
        var name = entity
        for (index, pair) in zip(versions, versions.dropFirst()).enumerated() {
            guard let next = Correspondence.adjacent(VersionPair(source: pair.0, destination: pair.1, direction: direction)).destinationEntity(of: name) else {
                return index
            }
            name = next
        }
        return nil
    }
}

extension ArchivePlan {
    /// Whether a way down along `versions` re-creates a table with a required column (NOT NULL,
    /// no default, not the key) that the version where the table first reappears does not have: one
    /// by one, the pair that re-creates the table gives its archived rows back before the later pair
    /// adds that column and gives its values back; fused, the table is made with the column required
    /// at once and the rows, which lack it, cannot go back (23502). Such a run is not fused.
    ///
    /// - Parameter atEnd: a version's `table.column` (`table.` for a whole table), from the version
    ///   at the given index, in the last version's names.
    static func makesARequiredColumnALaterPairAdds(along versions: [ModelVersion],
                                                   atEnd: ((table: String, column: String?), Int) -> String?) -> Bool {
        guard let last = versions.last, versions.count > 2 else { return false }
        let schemas = versions.map { $0.relationalSchema() }
        for table in last.relationalSchema().tables {
            // The first version of the run that has the table (in its names there); none: made at the end.
            let appearances = schemas.indices.dropLast().filter { index in
                schemas[index].tables.contains { atEnd(($0.name, nil), index) == table.name + "." }
            }
            guard let first = appearances.first, first > 0,
                  let then = schemas[first].tables.first(where: { atEnd(($0.name, nil), first) == table.name + "." }) else { continue }
            let columnsThen = Set(then.columns.compactMap { atEnd((then.name, $0.name), first) })
            let required = table.columns.filter { !$0.isNullable && $0.defaultValue == nil && !$0.isIdentity && !table.primaryKey.columns.contains($0.name) }
            if required.contains(where: { !columnsThen.contains(table.name + "." + $0.name) }) { return true }
        }
        return false
    }
}
