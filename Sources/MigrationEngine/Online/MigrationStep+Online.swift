import EntityModel
import Foundation

extension MigrationStep {
    /// The tables this step's distinct mappings fill, one row per key (destination names): catch-up
    /// follows them by key, migrating every row of a key again when that key's row changes.
    var tablesMadePerKey: Set<String> {
        guard let compiler = program.mapped?.compiler else { return [] }
        let declarative = program.mappings.compactMap { compiled -> String? in
            guard case .perKey = compiled.ids else { return nil }
            return compiler.destinationTable(of: compiled.mapping.destination)?.name
        }
        return Set(declarative + policyRowsMadePerKey.compactMap { compiler.destinationTable(of: $0.mapping.destination)?.name })
    }

    /// Whether a mapping of this step makes rows per key: a distinct mapping, or a row-local
    /// policy's shared rows.
    var makesRowsPerKey: Bool {
        program.mappings.contains { if case .perKey = $0.ids { true } else { false } } || !policyRowsMadePerKey.isEmpty
    }

    /// Why a Swift policy of this step cannot run again for the changed rows alone (it is not
    /// registered, or it declares that it reads other rows), nil when every policy is row-local.
    private func policyReadingOtherRows() -> String? {
        guard let model = mappingModel else { return nil }
        for mapping in model.entityMappings {
            guard let name = mapping.policy else { continue }
            guard let policy = model.policies.makePolicy(named: name) else {
                return "mapping \(mapping.name) runs the Swift policy \(name), which is not registered, so what it reads is not known"
            }
            if case let .readsOtherRows(why) = policy.locality {
                return "mapping \(mapping.name) runs the Swift policy \(name), which declares that it reads other rows: \(why)"
            }
            if let compiler = program.mapped?.compiler, !compiler.isInPlace(mapping), policy.locality.sharedRows[mapping.destination] == nil {
                return "mapping \(mapping.name) runs the Swift policy \(name), which makes its \(mapping.destination) rows with ids from the table's "
                    + "sequence, not its source rows' (nor once per key, `sharedRows`), so catch-up cannot tell which row came from which"
            }
        }
        return nil
    }

    /// How this step runs when its tenant migrates online (see ``OnlineStepMode``), decided from
    /// what the step was compiled to: its operations, its mappings and their expressions, its
    /// policies and hooks, and what it archives.
    public var onlineMode: OnlineStepMode {
        if let hooks {
            let names = [hooks.willMigrate.map { _ in "willMigrate" }, hooks.didMigrate.map { _ in "didMigrate" }].compactMap(\.self)
            return OnlineStepMode(.writesWait, "the pair's \(names.joined(separator: " and ")) hook is Swift code that catch-up cannot run again for the changed rows alone")
        }
        if let reason = policyReadingOtherRows() { return OnlineStepMode(.writesWait, reason) }
        for operation in program.operations {
            switch operation {
            case .moveLinks, .dropLinksTo:
                return OnlineStepMode(.writesWait, "a relationship's links move between a foreign key and a join table, so one row's links depend on other rows")
            case .moveRows:
                return OnlineStepMode(.writesWait, "rows move between tables (an inheritance change), with ids that depend on the rows already there")
            default:
                continue
            }
        }
        if let reason = mappingReadingOtherRows() { return OnlineStepMode(.writesWait, reason) }
        if let reason = predicateReadingOtherRows() { return OnlineStepMode(.writesWait, reason) }
        if let model = mappingModel {
            let policies = model.entityMappings.compactMap(\.policy)
            guard policies.isEmpty else {
                return OnlineStepMode(.shadow, "its mappings move data; changed rows are mapped again by id, and its row-local Swift "
                    + "\(policies.count == 1 ? "policy" : "policies") \(policies.joined(separator: ", ")) run again for them (checked as they run)")
            }
            return OnlineStepMode(.shadow, "its mappings move data; changed rows are mapped again by id")
        }
        if archivePlan.archivesSomething {
            let item = archivePlan.items[0]
            return OnlineStepMode(.shadow, "it archives \(item.column.map { "\(item.table).\($0)" } ?? "the rows of \(item.table)") before destroying or overwriting it")
        }
        let created = program.createdTables
        if let moving = program.operations.first(where: { !$0.isCatalogOnly(newTables: created) }) {
            return OnlineStepMode(.shadow, "\(moving.onlineDescription) reads or rewrites every row")
        }
        return OnlineStepMode(.catalogOnly, "every statement changes only the catalog")
    }

    /// Why a mapping of this step cannot be mapped again row by row: an expression or filter
    /// that reads other rows (a subquery, a table placeholder), or ids that depend on the rows its
    /// destination already holds. Nil when every mapping is row by row.
    private func mappingReadingOtherRows() -> String? {
        guard let model = mappingModel, let mapped = program.mapped else { return nil }
        let compiler = mapped.compiler
        var fillers: [String: [String]] = [:]
        for mapping in model.entityMappings where !compiler.isInPlace(mapping) {
            if let table = compiler.destinationTable(of: mapping.destination)?.name { fillers[table, default: []].append(mapping.name) }
        }
        for compiled in program.mappings {
            if case let .perKey(rows) = compiled.ids, let reason = distinctRefusal(compiled.mapping, rows: rows, in: model, compiler: compiler) { return reason }
        }
        for shared in policyRowsMadePerKey {
            guard let rows = shared.rows else { return "policy \(shared.policy) keys its \(shared.mapping.destination) rows by \(shared.attribute), which its source entity does not have" }
            if let reason = distinctRefusal(shared.mapping, rows: rows, in: model, compiler: compiler) { return reason }
        }
        for mapping in model.entityMappings {
            let expressions = [("filter", mapping.filter), ("distinct key", mapping.distinct?.key)] + mapping.attributes.map { ("attribute \($0.attribute)", Optional($0.expression)) }
                + mapping.relationships.map { ("relationship \($0.relationship)", Optional($0.from)) }
            for case let (place, expression?) in expressions where Self.readsOtherRows(expression) {
                return "mapping \(mapping.name)'s \(place) reads other rows (\(expression.prefix(60))), so a changed row cannot be mapped again alone"
            }
            for case let (place, expression?) in expressions {
                if let hop = compiler.inverseHop(in: expression, from: mapping.source) {
                    return "mapping \(mapping.name)'s \(place) follows \(hop) from the side that does not hold its foreign key"
                }
            }
            guard !compiler.isInPlace(mapping), let table = compiler.destinationTable(of: mapping.destination)?.name else { continue }
            if compiler.differ.tableMatch.values.contains(table) || fillers[table, default: []].count > 1 {
                return "mapping \(mapping.name) makes its \(mapping.destination) rows with ids offset past the rows already in \(table), which depend on the whole table"
            }
        }
        return nil
    }

    /// Why a row predicate of the account (what the archive copies, what a loss counts) reads
    /// other rows; nil when none does. "Some row of H refers to this one" (a mapping reads the
    /// row through H's key) is followed: catch-up knows which rows of H refer to which.
    private func predicateReadingOtherRows() -> String? {
        let distinct = distinctPredicates + rowLocalPolicyLossPredicates
        let predicates = archivePlan.items.compactMap(\.rows).map(PlaceholderQuoting.text) + account.entries.compactMap(\.item.rows?.predicate)
        guard let predicate = predicates.first(where: { predicate in
            Self.readsOtherRows(Self.withoutHolderTests(distinct.reduce(predicate) { $0.replacingOccurrences(of: $1, with: "true") }))
        }) else { return nil }
        return "the rows it archives are chosen by a predicate that reads other rows (\(predicate.prefix(60)))"
    }

    /// The `loses` predicates of this step's row-local policies that make rows per key, as the
    /// account writes them. Such a predicate may read the rows of its row's keys (the loss of a
    /// value that differs from its key's first row's): catch-up puts each affected key's first row
    /// in the delta, as for a distinct mapping. What else it reads is not seen (docs/Online.md).
    private var rowLocalPolicyLossPredicates: [String] {
        guard let model = mappingModel, let compiler = program.mapped?.compiler else { return [] }
        return model.entityMappings.flatMap { mapping -> [String] in
            guard let name = mapping.policy, let policy = model.policies.makePolicy(named: name), !policy.locality.sharedRows.isEmpty else { return [] }
            return policy.loses.compactMap { loss in
                var selection = MappingCompiler.Selection()
                return loss.rows.flatMap { try? PlaceholderQuoting.text(compiler.rewrite($0, from: mapping.source, into: &selection)) }
            }
        }
    }

    /// `predicate` without its tests that a row of another table refers to the row (the
    /// accountant's `EXISTS (… AS tm_holder WHERE tm_holder.key = source.id)` for key paths).
    static func withoutHolderTests(_ predicate: String) -> String {
        predicate.replacingOccurrences(
            of: #"EXISTS \(SELECT 1 FROM \{schema\}\."(?:[^"]|"")+" AS tm_holder WHERE tm_holder\."(?:[^"]|"")+" = source\.id\)"#,
            with: "true", options: .regularExpression
        )
    }

    /// Whether an SQL expression over the source row reads other rows: a subquery, or a table
    /// placeholder (`{source:Entity}`, `{schema}`; braces in quoted text are none, ``PlaceholderScan``).
    /// Functions that read tables are not seen.
    static func readsOtherRows(_ expression: String) -> Bool {
        if !PlaceholderScan.placeholders(in: expression).isEmpty { return true }
        return expression.range(of: #"\bselect\b"#, options: [.regularExpression, .caseInsensitive]) != nil
    }
}

extension SchemaOperation {
    /// Whether PostgreSQL does this in the catalog alone, without reading or rewriting rows:
    /// renames, new tables, new columns, defaults, dropping NOT NULL, drops, and constraints or
    /// indexes on a table the same step creates (`newTables`, still empty).
    func isCatalogOnly(newTables: Set<String>) -> Bool {
        switch self {
        case .dropConstraint, .dropIndex, .renameTable, .renameColumn, .renameConstraint, .renameIndex, .createTable, .addColumn,
             .setDefault, .dropColumn, .dropTable, .resetIdentity:
            return true
        case let .setNullable(_, _, isNullable):
            return isNullable
        case let .addForeignKey(table, _), let .replaceForeignKey(table, _), let .addUnique(table, _), let .addCheck(table, _), let .createIndex(table, _):
            return newTables.contains(table)
        case let .addPrimaryKey(table, _, _, index):
            return index != nil || newTables.contains(table)
        case .alterType, .backfill, .renameDiscriminatorValue, .deleteEntityRows, .dropLinksTo, .moveLinks, .moveRows:
            return false
        case let .enumChange(change):
            return !change.movesData
        case .setComment, .sequenceChange:
            return true
        }
    }

    /// The operation in a few words, for `plan`'s online column.
    var onlineDescription: String {
        switch self {
        case let .alterType(table, column, type): return "changing \(table).\(column) to \(type.rawValue)"
        case let .backfill(table, column, _, _): return "filling \(table).\(column) where it is NULL"
        case let .setNullable(table, column, _): return "making \(table).\(column) NOT NULL"
        case let .renameDiscriminatorValue(table, _, _): return "renaming an entity in \(table)'s discriminator"
        case let .deleteEntityRows(table, _): return "deleting the rows of removed entities from \(table)"
        case let .addForeignKey(table, key): return "adding the foreign key \(key.name) to \(table)"
        case let .replaceForeignKey(table, key): return "adding the foreign key \(key.name) to \(table) with its new rule"
        case let .addUnique(table, unique): return "adding the unique constraint \(unique.name) to \(table)"
        case let .addPrimaryKey(table, name, _, _): return "adding the primary key \(name) to \(table)"
        case let .addCheck(table, check): return "adding the check \(check.name) to \(table)"
        case let .createIndex(table, index): return "creating the index \(index.name) on \(table)"
        case let .enumChange(change): return change.summary
        case let .sequenceChange(change): return change.summary
        default: return "\(self)"
        }
    }
}

extension MappingCompiler {
    /// The first hop of an expression's key paths that goes through a one-to-one from the side
    /// without the foreign key (`Entity.relationship`), nil when every hop follows a foreign key.
    func inverseHop(in expression: String, from entity: String) -> String? {
        for (_, path) in SourceKeyPath.occurrences(in: expression) {
            guard case let .success(resolved) = path.resolve(from: entity, in: source) else { continue }
            for hop in resolved.hops where foreignKeyColumn(of: hop) == nil {
                return "\(hop.entity).\(hop.relationship)"
            }
        }
        return nil
    }

    /// The source table and foreign key column a hop follows (source names), nil when the key is
    /// on the other side.
    func foreignKeyColumn(of hop: SourceKeyPath.Resolved.Hop) -> (table: String, column: String)? {
        guard let holder = differ.old.table(forEntity: source.rootEntity(of: hop.entity)),
              let column = holder.column(withOrigin: .relationship(entity: hop.entity, relationship: hop.relationship)) else { return nil }
        return (holder.name, column.name)
    }
}
