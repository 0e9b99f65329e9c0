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
    /// restores every pair's entries at its end, so no pair after one that restores something may
    /// move, fill or constrain data (a link move, a backfill, NOT NULL, a check…), which the
    /// pairs run one by one would apply to the restored values.
    ///
    /// - Parameter reverseAccounts: for each pair, the account of the pair crossed the other way.
    static func restoresAllowFusion(of pairs: [InferredChanges], reverseAccounts: [StepAccount?]) -> Bool {
        for (index, pair) in pairs.enumerated() {
            guard let reverse = reverseAccounts.indices.contains(index) ? reverseAccounts[index] : nil,
                  !items(account: reverse, names: reverse.names ?? ArchiveNames(), sourceSchema: pair.destination.relationalSchema()).isEmpty else { continue }
            if pairs[(index + 1)...].contains(where: \.changesDataARestoreNeeds) { return false }
        }
        return true
    }
}

extension InferredChanges {
    /// Whether the step moves, fills, deletes or constrains rows (beyond adding and dropping).
    var changesDataARestoreNeeds: Bool {
        operations.contains { operation in
            if operation.dataTarget != nil { return true }
            switch operation {
            case .setNullable(_, _, false), .addCheck, .addUnique, .deleteEntityRows: return true
            default: return false
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
        return attributed
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
                guard keepsType(column.name, of: table.name, until: pair) else { return nil }
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
        let q = PlaceholderQuoting()
        var result: [ArchivePlan.Item] = []
        for (pair, removed) in byPair.sorted(by: { $0.key < $1.key }) {
            guard let name = forward[pair].table(item.table), pairKeys[pair].contains(name + "."),
                  var rows = wholeRows(item, pair: pair) else { return nil }
            rows[rows.count - 1].entities = removed
            rows[rows.count - 1].rows = "source.\"entity\" IN (\(removed.map(q.quoteLiteral).joined(separator: ", ")))"
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
