import EntityModel

/// Where each table's rows come from across the steps an online migration catches up: the
/// provenance that lets a change to a source row reach exactly the destination rows it produced.
///
/// Every step that can be caught up keeps ids: a destination row has the id (or, in a join table,
/// the key) of the one source row it came from, in the table it was matched to or in the new table
/// one mapping fills from it. So the lineage is, per destination table, its source table; a row's
/// key is the same on both sides. Tables and columns are named as in the plan's first version
/// (the live tables) on the source side, as in its last on the destination side.
public struct OnlineLineage: Sendable, Hashable {
    /// A destination table's rows, and the source table they come from.
    public struct Origin: Sendable, Hashable {
        /// The source table (live name).
        public var sourceTable: String
        /// Its key columns (primary key), in order.
        public var sourceKey: [String]
        /// The destination table's key columns, in the same order.
        public var destinationKey: [String]
        /// Each destination column that holds a source column's values (as the steps kept it,
        /// renamed or not) → that source column (live name). Empty for a table a mapping fills.
        public var columns: [String: String] = [:]
        /// Whether a mapping fills the table from the source table's rows (a new table, with the
        /// same ids), rather than the table being the source table itself through the steps.
        public var isFilledByMapping = false
    }

    /// A mapping reads the row a foreign key names (a key path `source.recipe.name`): when that
    /// row changes, every row naming it is mapped again.
    public struct Reader: Sendable, Hashable {
        /// The table whose rows read through the key, and the key column (live names).
        public var table: String
        public var column: String
        /// The table the key refers to (live name).
        public var referencedTable: String
    }

    /// Destination table → where its rows come from. A destination table that is not here gets
    /// no rows from the source (a new table no step fills): it is empty in both runs.
    public var origins: [String: Origin] = [:]
    /// Source table → every name its rows have in the versions the steps walk through (the
    /// archive keys its entries by one of these).
    public var names: [String: Set<String>] = [:]
    /// The foreign keys mappings read through.
    public var readers: [Reader] = []

    /// The lineage through `steps`, run in order from `source` (each keeps ids; see
    /// ``MigrationStep/onlineMode``).
    init(steps: [MigrationStep], source: ModelVersion) {
        let sourceSchema = source.relationalSchema()
        // Current table → (live table, current column → live column, filled by a mapping).
        var current: [String: (table: String, columns: [String: String], filled: Bool)] = [:]
        for table in sourceSchema.tables {
            current[table.name] = (table.name, Dictionary(uniqueKeysWithValues: table.columns.map { ($0.name, $0.name) }), false)
            names[table.name] = [table.name]
        }
        for step in steps {
            readers += step.keyPathReaders().compactMap { reader in
                guard let holder = current[reader.table], let referenced = current[reader.referencedTable],
                      let column = holder.columns[reader.column] else { return nil }
                return Reader(table: holder.table, column: column, referencedTable: referenced.table)
            }
            var next: [String: (table: String, columns: [String: String], filled: Bool)] = [:]
            let stepNames = step.account.names ?? ArchiveNames()
            for (old, new) in stepNames.survivingTables {
                guard let origin = current[old] else { continue }
                var columns: [String: String] = [:]
                for (key, destination) in stepNames.survivingColumns where key.hasPrefix(old + ".") {
                    if let live = origin.columns[String(key.dropFirst(old.count + 1))] { columns[destination] = live }
                }
                next[new] = (origin.table, columns, origin.filled)
                names[origin.table, default: []].insert(new)
            }
            for (destination, sourceTable) in step.filledFromOtherTables() {
                guard let origin = current[sourceTable], next[destination] == nil else { continue }
                next[destination] = (origin.table, [:], true)
                names[origin.table, default: []].insert(destination)
            }
            current = next
        }
        let destinationSchema = (steps.last?.destination ?? source).relationalSchema()
        for (table, origin) in current {
            guard let destination = destinationSchema.table(named: table), let live = sourceSchema.table(named: origin.table) else { continue }
            // Each source key column's destination column, in the source key's order: a join
            // table renamed with its entities may list its pair the other way round
            // (`e4_r18 (e4_id, e9_id)` becoming `e20_r17 (e20_id, e4_id)`).
            let carried = live.primaryKey.columns.compactMap { key in origin.columns.first { $0.value == key }?.key }
            let destinationKey = carried.count == live.primaryKey.columns.count && Set(carried) == Set(destination.primaryKey.columns)
                ? carried : destination.primaryKey.columns
            origins[table] = Origin(sourceTable: origin.table, sourceKey: live.primaryKey.columns, destinationKey: destinationKey, columns: origin.columns,
                                    isFilledByMapping: origin.filled)
        }
    }

    /// Destination table → the source table whose rows it holds, over every step of `plan`
    /// (whether or not the steps can be caught up): the live table a new table takes the place of.
    public static func tableOrigins(of plan: MigrationPlan) -> [String: String] {
        OnlineLineage(steps: plan.steps, source: plan.source).origins.mapValues(\.sourceTable)
    }

    /// Destination table that is a source table through the steps of `plan` (renamed or not) →
    /// each of its columns that holds a source column's values → that source column (live name)
    /// (``Origin/columns``): whose rights each gets. Offline a table keeps its rights through the
    /// steps, and a column its own through renames and type changes; a column added has none, even
    /// under the name of one a step dropped before, and a table a mapping fills from another is a
    /// new table (not here), with the schema's default privileges.
    public static func columnOrigins(of plan: MigrationPlan) -> [String: [String: String]] {
        OnlineLineage(steps: plan.steps, source: plan.source).origins.filter { !$0.value.isFilledByMapping }.mapValues(\.columns)
    }

    /// The destination tables made from `sourceTable`'s rows.
    public func destinations(of sourceTable: String) -> [String] {
        origins.filter { $0.value.sourceTable == sourceTable }.map(\.key).sorted()
    }
}

extension MigrationStep {
    /// The foreign keys this step's mappings read through (source names of this step).
    func keyPathReaders() -> [OnlineLineage.Reader] {
        guard let model = mappingModel, let compiler = program.mapped?.compiler else { return [] }
        var readers: [OnlineLineage.Reader] = []
        for mapping in model.entityMappings {
            let expressions = [mapping.filter, mapping.distinct?.key].compactMap(\.self) + mapping.attributes.map(\.expression) + mapping.relationships.map(\.from)
            for expression in expressions {
                for (_, path) in SourceKeyPath.occurrences(in: expression) {
                    guard case let .success(resolved) = path.resolve(from: mapping.source, in: compiler.source) else { continue }
                    for hop in resolved.hops {
                        guard let (table, column) = compiler.foreignKeyColumn(of: hop),
                              let referenced = compiler.differ.old.table(forEntity: compiler.source.rootEntity(of: hop.destination)) else { continue }
                        readers.append(OnlineLineage.Reader(table: table, column: column, referencedTable: referenced.name))
                    }
                }
            }
        }
        return readers
    }

    /// New destination tables a mapping fills from another source table, with the same ids
    /// (destination → source table, this step's names).
    func filledFromOtherTables() -> [String: String] {
        guard let model = mappingModel, let compiler = program.mapped?.compiler else { return [:] }
        var filled: [String: String] = [:]
        // (A distinct mapping's rows are one per key, not per source row: see ``OnlineDistinct``.)
        for mapping in model.entityMappings where !compiler.isInPlace(mapping) && mapping.distinct == nil {
            guard let destination = compiler.destinationTable(of: mapping.destination)?.name,
                  let source = compiler.differ.old.table(forEntity: compiler.source.rootEntity(of: mapping.source))?.name else { continue }
            filled[destination] = source
        }
        return filled
    }
}
