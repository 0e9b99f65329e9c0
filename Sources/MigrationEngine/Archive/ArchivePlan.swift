import EntityModel
import TypedSQL

/// What one step copies into the tenant's archive before it destroys or overwrites it, and what it
/// gives back from the archive, worked out once, when the step is compiled.
///
/// Every entry is keyed by the **adjacent pair** whose change took the value (even inside a fused
/// step) and names its table and column as they are in that pair's source version. A way back that
/// crosses the pair, in one call or many, fused or not, restores the entry (``PairRestore``).
///
/// What is archived comes from the step's account: every destroyed entry that names a table
/// (dropped columns and tables, deleted rows, links a smaller relationship cannot hold, narrowed
/// values, losses declared under `loses:`), every in-place overwrite (an expression, a policy, a
/// backfill), and every source column or table the step drops whose values the way back cannot
/// provably give back (a value a mapping read and then dropped), NULLs included.
struct ArchivePlan: Sendable {
    /// An adjacent pair crossed in one direction: how archive entries are keyed.
    struct PairKey: Sendable, Hashable {
        let from: String
        let to: String
        var reversed: PairKey { PairKey(from: to, to: from) }
    }

    /// The step's ends (a fused step's first and last version).
    let from: String
    let to: String
    /// The adjacent pairs the step crosses, in order.
    let pairs: [PairKey]
    let names: ArchiveNames
    let sourceSchema: RelationalSchema
    let destinationSchema: RelationalSchema
    private(set) var items: [Item]
    /// What the step gives back, for each pair it crosses, in the order it crosses them.
    let restores: [PairRestore]
    /// The family, to read entries that earlier releases keyed by a fused step's ends.
    let family: ModelFamily?
    /// What the step's way back gives back of the columns it drops (a single step whose reverse
    /// pair has a mapping model): their items are copied only in the rows where it would not,
    /// once the step's closing stage ran (``provedCopies``).
    private(set) var proofs: [WayBackProof]

    /// The plan that keeps only the proofs `kept` accepts: the columns of the others are archived
    /// in every row.
    func keepingProofs(where kept: (WayBackProof) -> Bool) -> ArchivePlan {
        guard !proofs.isEmpty else { return self }
        var plan = self
        plan.proofs = proofs.filter(kept)
        for index in plan.items.indices where plan.items[index].proved {
            let item = plan.items[index]
            plan.items[index].proved = plan.proofs.contains { $0.table == item.table && $0.columns.contains { $0.name == item.column } }
        }
        return plan
    }

    /// Whether an archived link is kept with its target (``LinkTarget``).
    private(set) var takesLinkTargets = true

    /// What tells this plan's copies apart from those of the other plans ``keepingProofs(where:)``
    /// and ``withoutLinkTargets()`` make of the same step: a run's memory keeps its copies' SQL by it
    /// (``StepMemory``).
    var copiesVariant: [String] { [String(takesLinkTargets)] + proofs.map(\.table) }

    /// The plan that archives links without their targets (they then go back by id).
    func withoutLinkTargets() -> ArchivePlan {
        var plan = self
        plan.takesLinkTargets = false
        return plan
    }

    /// Whether the step destroys or overwrites anything the archive keeps.
    var archivesSomething: Bool { !items.isEmpty || !removedSequences.isEmpty }

    /// The sequences the step drops, whose positions the archive keeps (``StepArchive/copySequencePositions()``).
    private(set) var removedSequences: [RemovedSequence] = []

    /// One archive copy: a column's values (or whole rows, `column` nil) of a source table, in
    /// the rows a predicate selects (nil: all).
    struct Item: Sendable, Hashable {
        /// The source table and column (the step's first version's names).
        var table: String
        var column: String?
        var rows: SQL?
        /// A narrowing: archived before the step's type changes, where the cast changes the value.
        var narrowing: Bool
        /// The rows of these removed entities (whole rows of a table that stays).
        var entities: [String]? = nil
        /// Destination columns, in the row's own row, that a mapping derived from this dropped column.
        var derived: [String] = []
        /// Which of the step's pairs took the values.
        var pair = 0
        /// The table and column as the pair's source version names them (what the entry records).
        var recordedTable: String
        var recordedColumn: String?
        /// For whole rows: each live source column and the key it has in the archived JSON.
        var rowKeys: [RowKey] = []
        /// Of a link a later pair of a fused step archives: each identifying column of its target
        /// (the step's first version's name) and its name in the archived target (the pair's source
        /// version's), so that the entry records its target exactly as that pair's single step
        /// would. Nil for the step's first pair, whose names are the step's own.
        var targetKeys: [RowKey]?
        /// A dropped column the step's way back writes (a ``WayBackProof``): copied at the end of
        /// the step, only in the rows where the way back would not give the value back.
        var proved = false
        /// Of a proved column: whether its copy leaves out the rows the way back gives back (else it
        /// takes every row, each with what the way back derives, ``WayBackProof/Column/spares``).
        var spares = true
        /// A column the step overwrites in place and its way back carries back as it is
        /// (``StepAccount/Entry/changedOnly``): once the step ran, only the values it changed stay
        /// in the archive.
        var changedOnly = false

        init(table: String, column: String?, rows: SQL?, narrowing: Bool) {
            self.table = table
            self.column = column
            self.rows = rows
            self.narrowing = narrowing
            recordedTable = table
            recordedColumn = column
        }

        /// `table.column` (`table.` for whole rows), in the step's source names.
        var key: String { table + "." + (column ?? "") }
    }

    struct RowKey: Sendable, Hashable {
        /// The source column (the step's first version's name).
        var column: String
        /// Its name in the archived row (the pair's source version's).
        var key: String
    }

    /// A single step's plan: every entry is keyed by its one pair.
    ///
    /// - Parameter proofs: what the step's way back gives back of the columns it drops.
    init(account: StepAccount, versions: [ModelVersion], direction: MigrationDirection, restores: [PairRestore], family: ModelFamily?,
         proofs: [WayBackProof] = []) {
        self.init(account: account, versions: versions, restores: restores, family: family, proofs: proofs) { items, _ in items }!
    }

    /// A plan whose items `attribute` assigns to pairs (nil: it cannot).
    init?(account: StepAccount, versions: [ModelVersion], restores: [PairRestore], family: ModelFamily?, proofs: [WayBackProof] = [],
          attribute: ([Item], ArchivePlan) -> [Item]?) {
        from = versions[0].name
        to = versions[versions.count - 1].name
        pairs = zip(versions, versions.dropFirst()).map { PairKey(from: $0.name, to: $1.name) }
        names = account.names ?? ArchiveNames()
        sourceSchema = versions[0].relationalSchema()
        destinationSchema = versions[versions.count - 1].relationalSchema()
        self.restores = restores
        self.family = family
        self.proofs = proofs
        removedSequences = Self.removedSequences(along: versions)
        items = []
        guard let attributed = attribute(Self.items(account: account, names: names, sourceSchema: sourceSchema), self) else { return nil }
        items = attributed.map { item in
            var item = item
            if item.column == nil, item.rowKeys.isEmpty, let table = sourceSchema.table(named: item.table) {
                item.rowKeys = table.columns.map { RowKey(column: $0.name, key: $0.name) }
            }
            let proof = item.column.flatMap { column in proofs.lazy.compactMap { $0.table == item.table ? $0.columns.first { $0.name == column } : nil }.first }
            item.proved = proof != nil
            item.spares = proof?.spares ?? true
            item.changedOnly = item.column.map { account.entries(table: item.table, column: $0) }.map { !$0.isEmpty && $0.allSatisfy { $0.changedOnly == true } } ?? false
            return item
        }
    }

    /// The account's archivable entries, one item per table and column (their rows OR-ed).
    static func items(account: StepAccount, names: ArchiveNames, sourceSchema: RelationalSchema) -> [Item] {
        var byKey: [String: Item] = [:]
        var order: [String] = []
        func add(_ table: String, _ column: String?, _ rows: SQL?, narrowing: Bool = false, entities: [String]? = nil, derived: [String] = [],
                 someLinks: Bool = false) {
            guard !table.isEmpty, sourceSchema.table(named: table) != nil else { return }
            // A table that goes is archived as whole rows, once (of a join table whose links move
            // into a foreign key, only those it cannot hold: `someLinks`).
            let wholeTable = names.survivingTables[table] == nil
            var item = Item(table: table, column: wholeTable ? nil : column, rows: wholeTable && !someLinks ? nil : rows, narrowing: narrowing && !wholeTable)
            item.entities = wholeTable ? nil : entities
            item.derived = wholeTable ? [] : derived
            if var existing = byKey[item.key] {
                existing.rows = (existing.rows == nil || item.rows == nil) ? nil : "(\(existing.rows!)) OR (\(item.rows!))" as SQL
                existing.entities = existing.entities.map { $0 + (item.entities ?? []) }
                existing.derived += item.derived.filter { !existing.derived.contains($0) }
                existing.narrowing = existing.narrowing && item.narrowing
                byKey[item.key] = existing
            } else {
                byKey[item.key] = item
                order.append(item.key)
            }
        }
        // (Where the step also deletes rows, a link the foreign key would hold may name one of them:
        // every link of a join table that goes is archived then.)
        let deletesRows = account.entries.contains { entry in
            if case let .destroyed(change) = entry.fate { change.kind == .deleteRows } else { false }
        }
        for entry in account.entries {
            let item = entry.item
            let column = item.kind == .column ? item.column : nil
            switch entry.fate {
            case let .destroyed(change):
                guard !change.table.isEmpty else { continue }
                if change.kind == .narrowType || change.kind == .removeEnumValues {
                    // (Values an enum loses: copied before its rebuild, in the rows holding them.)
                    add(item.table, item.column, item.rows?.sql, narrowing: true)
                } else {
                    let entities = change.kind == .deleteRows ? item.property?.components(separatedBy: ", ") : nil
                    add(item.table, column, item.rows?.sql, entities: entities, someLinks: change.kind == .dropLinks && item.kind == .links && !deletesRows)
                }
            case .transformed where entry.overwritesInPlace == true:
                add(item.table, item.column, item.rows?.sql)
            case .transformed where entry.reversible == true:
                continue
            case .carried where entry.overwrittenByWayBack == true:
                // Carried as it is, but the way back rewrites it in place: archived, so that it can
                // give back what this version had.
                add(item.table, column, item.rows?.sql)
            case .transformed, .carried:
                // Kept elsewhere, or read and written in another form: the way back may not give it
                // back exactly, so what the step drops is archived.
                if let column, names.survivingColumns[item.table + "." + column] == nil {
                    let survivor = names.survivingTables[item.table]
                    let derived = (entry.derived ?? []).filter { $0.table == survivor }.compactMap(\.column)
                    add(item.table, column, item.rows?.sql, derived: derived)
                } else if column == nil, names.survivingTables[item.table] == nil {
                    add(item.table, nil, nil)
                }
            }
        }
        // Deleting rows also takes what refers to them: foreign keys set NULL, links and rows
        // deleted in cascade. Those are archived too, from the rows that refer to deleted ones.
        for key in order {
            guard let deleted = byKey[key], deleted.column == nil, let rows = deleted.rows else { continue }
            for table in sourceSchema.tables where names.survivingTables[table.name] != nil {
                for foreignKey in table.foreignKeys where foreignKey.referencedTable == deleted.table && foreignKey.columns.count == 1 {
                    let column = foreignKey.columns[0]
                    let referring: SQL = "source.\(id: names.liveColumn(column, of: table.name)) IN (SELECT source.id FROM "
                        + "\(table: names.liveTable(deleted.table)) AS source WHERE \(rows))"
                    if case .joinTable = table.origin {
                        add(table.name, nil, referring)
                    } else if foreignKey.onDelete == .cascade {
                        add(table.name, nil, referring)
                    } else {
                        // (Also a column whose links move to new storage: the way back moves them back.)
                        add(table.name, column, referring)
                    }
                }
            }
        }
        return order.map { byKey[$0]! }
    }

    /// `INSERT … SELECT` of one item's values (or rows) from the live table into the archive,
    /// NULLs included, keyed by the item's pair and named as the pair's source version names them.
    func copy(_ item: Item) -> SQL {
        // A narrowing is copied before the step's renames: the source names still hold.
        let liveTable = item.narrowing ? item.table : names.liveTable(item.table)
        let table = sourceSchema.table(named: item.table)
        // A table keyed otherwise than by an integer id keeps its rows by their key (``ArchiveRowKey``).
        let rowKey = table.flatMap(ArchiveRowKey.init)
        let rowID: SQL = rowKey == nil && table?.column(named: "id") != nil ? "source.id" : "0"
        var conditions: [SQL] = []
        let value: SQL
        var target: SQL?
        if let name = item.column {
            let live: SQL = "source.\(id: item.narrowing ? name : names.liveColumn(name, of: item.table))"
            value = "\(live)::text"
            if takesLinkTargets, !item.narrowing, item.pair == 0 || item.targetKeys != nil, let table {
                // A link: what it points at too (a pair further along a fused step: named as that pair's source names it).
                target = LinkTarget.copy(column: name, of: table, in: sourceSchema, names: names, keys: item.targetKeys)
            }
            if item.narrowing, let surviving = names.survivingColumns[item.table + "." + name],
               let newTable = names.survivingTables[item.table], let newType = destinationSchema.table(named: newTable)?.column(named: surviving)?.type,
               let oldType = table?.column(named: name)?.type, oldType != newType {
                // The value as the narrowed column will hold it differs from the value now. A value
                // into or out of an enum keeps its text (or does not fit, and the step stops); the
                // enum may not exist yet when the archive is copied.
                // A numeric compares with a numeric of any scale: cast back to the old type, a value
                // rounded up past it (99999.999 at numeric(8,3) is 100000.0 at numeric(8,1)) would overflow.
                let back: SQL = oldType.rawValue.hasPrefix("numeric(") && newType.rawValue.hasPrefix("numeric") ? "" : oldType.cast
                // A numeric given more decimals (`numeric(8,1)` → `numeric(8,3)`) changes no value: it fits or fails.
                conditions.append(newType.enumName != nil || oldType.enumName != nil || TypeChange.keepsDecimals(from: oldType, to: newType) ? "false"
                    : "\(live)\(newType.cast)\(back) IS DISTINCT FROM \(live)")
            }
        } else {
            // A jsonb value goes in as its text, so a JSON null stays apart from an SQL NULL; so do
            // reals and doubles, whose -0 a JSON number would turn into 0, a json value (kept as
            // written: a jsonb member would drop its spaces and duplicate keys) and arrays (a JSON
            // array is not an array's text, and would turn a double's -0 into 0).
            let asText: Set<SQLType> = [.jsonb, .real, .doublePrecision, SQLType(rawValue: "json")]
            func keptAsText(_ type: SQLType) -> Bool { asText.contains(type) || type.rawValue.hasSuffix("[]") }
            let members = item.rowKeys.map { key -> (key: String, value: SQL) in
                let live: SQL = "source.\(id: names.liveColumn(key.column, of: item.table))"
                return (key.key, table?.column(named: key.column).map { keptAsText($0.type) } == true ? "\(live)::text" : live)
            }
            value = "(\(Self.jsonObject(members)))::text"
        }
        if let rows = item.rows { conditions.append("(\(rows))") }
        let whereClause: SQL = conditions.isEmpty ? "" : " WHERE \(conditions, joinedBy: " AND ")"
        let pair = pairs[item.pair]
        var targetColumn: SQL = target == nil ? "" : ", target"
        var targetValue: SQL = target.map { ", \($0)" } ?? ""
        if let rowKey {
            targetColumn.append(", row_key")
            targetValue.append(", \(rowKey.text(of: "source") { item.narrowing ? $0 : names.liveColumn($0, of: item.table) })")
        }
        // A whole table's rows: its identity's last value too where it is past the last row
        // (``StepArchive/identityColumn``), so the way back numbers new rows past every id the app
        // used (and deleted), not only past the rows it restores.
        let identity: SQL = item.column == nil && item.rows == nil && item.entities == nil && table?.column(named: "id")?.isIdentity == true
            ? "WITH identity AS (INSERT INTO \(table: TenantArchive.tableName) (step_from, step_to, table_name, column_name, row_id, value) "
                + "SELECT \(bind: .text(pair.from)), \(bind: .text(pair.to)), \(bind: .text(item.recordedTable)), \(bind: .text(StepArchive.identityColumn)), 0, s.last::text "
                // (The value nextval would give, less one: the last value may not have been drawn
                // yet, as after a restore's reset. The table goes with its identity right after.)
                + "FROM (SELECT pg_catalog.nextval(pg_catalog.pg_get_serial_sequence(\(qualifiedNameLiteral: liveTable), 'id')::pg_catalog.regclass) - 1 AS last) AS s "
                + "WHERE s.last > coalesce((SELECT pg_catalog.max(t.id) FROM \(table: liveTable) AS t), 0)) "
            : ""
        return identity + "INSERT INTO \(table: TenantArchive.tableName) (step_from, step_to, table_name, column_name, row_id, value\(targetColumn)) "
            + "SELECT \(bind: .text(pair.from)), \(bind: .text(pair.to)), \(bind: .text(item.recordedTable)), \(bind: .text(item.recordedColumn ?? "")), \(rowID), \(value)\(targetValue) "
            + "FROM \(table: liveTable) AS source\(whereClause)"
    }

    /// `jsonb_build_object(key, value, …)` of any number of pairs (a function takes at most 100
    /// arguments: larger objects are concatenated).
    static func jsonObject(_ members: [(key: String, value: SQL)]) -> SQL {
        let chunks = stride(from: 0, to: max(members.count, 1), by: 50).map { start in
            let arguments: [SQL] = members[start..<min(start + 50, members.count)].flatMap { member -> [SQL] in ["\(literal: member.key)", member.value] }
            return "pg_catalog.jsonb_build_object(\(arguments, joinedBy: ", "))" as SQL
        }
        return chunks.joined(separator: " || ")
    }
}
