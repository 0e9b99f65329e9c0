import EntityModel

/// What one step copies into the tenant's archive before it destroys or overwrites it, worked out
/// once, when the step is compiled: one item per source table and column (whole rows for a table
/// that goes), each with its `INSERT … SELECT` into the archive for any tenant.
///
/// What is archived comes from the step's account: every destroyed entry that names a table
/// (dropped columns and tables, deleted rows, links a smaller relationship cannot hold, narrowed
/// values, losses declared under `loses:`) and every in-place overwrite by an expression or policy.
struct ArchivePlan: Sendable {
    /// The step's ends, as the archive keys its entries (a fused step's first and last version).
    let from: String
    let to: String
    let names: ArchiveNames
    let sourceSchema: RelationalSchema
    let destinationSchema: RelationalSchema
    let items: [Item]

    init(account: StepAccount, source: ModelVersion, destination: ModelVersion) {
        from = source.name
        to = destination.name
        names = account.names ?? ArchiveNames()
        sourceSchema = source.relationalSchema()
        destinationSchema = destination.relationalSchema()
        items = Self.items(account: account, names: names, sourceSchema: sourceSchema)
    }

    /// Whether the step destroys or overwrites anything the archive keeps.
    var archivesSomething: Bool { !items.isEmpty }

    /// `table.column` (`table.` for whole rows) of an item.
    static func key(_ item: Item) -> String { item.table + "." + (item.column ?? "") }

    /// One archive copy: a column's values (or whole rows, `column` nil) of a source table, in
    /// the rows a predicate selects (nil: all).
    struct Item: Sendable, Hashable {
        var table: String
        var column: String?
        var rows: String?
        /// A narrowing: archived before the step's type changes, where the cast changes the value.
        var narrowing: Bool
    }

    /// The account's archivable entries, one item per table and column (their rows OR-ed).
    private static func items(account: StepAccount, names: ArchiveNames, sourceSchema: RelationalSchema) -> [Item] {
        var byKey: [String: Item] = [:]
        var order: [String] = []
        func add(_ table: String, _ column: String?, _ rows: String?, narrowing: Bool = false) {
            guard !table.isEmpty, sourceSchema.table(named: table) != nil else { return }
            // A table that goes is archived as whole rows, once.
            let wholeTable = names.survivingTables[table] == nil
            let key = wholeTable ? table + "." : table + "." + (column ?? "")
            let item = Item(table: table, column: wholeTable ? nil : column, rows: wholeTable ? nil : rows, narrowing: narrowing && !wholeTable)
            if var existing = byKey[key] {
                existing.rows = (existing.rows == nil || item.rows == nil) ? nil : "(\(existing.rows!)) OR (\(item.rows!))"
                byKey[key] = existing
            } else {
                byKey[key] = item
                order.append(key)
            }
        }
        for entry in account.entries {
            switch entry.fate {
            case let .destroyed(change):
                guard !change.table.isEmpty else { continue }
                if change.kind == .narrowType {
                    add(entry.item.table, entry.item.column, nil, narrowing: true)
                } else {
                    add(entry.item.table, entry.item.kind == .column ? entry.item.column : nil, entry.item.rows?.predicate)
                }
            case .transformed where entry.overwritesInPlace == true:
                add(entry.item.table, entry.item.column, entry.item.rows?.predicate)
            default:
                continue
            }
        }
        return order.map { byKey[$0]! }
    }

    /// `INSERT … SELECT` of one item's values (or rows) from the live table into the archive.
    func copy(_ item: Item) -> SQL {
        // A narrowing is copied before the step's renames: the source names still hold.
        let liveTable = item.narrowing ? item.table : names.liveTable(item.table)
        let table = sourceSchema.table(named: item.table)
        let rowID: SQL = table?.column(named: "id") != nil ? "source.id" : "0"
        var conditions: [SQL] = []
        let value: SQL
        if let name = item.column {
            let live: SQL = "source.\(id: item.narrowing ? name : names.liveColumn(name, of: item.table))"
            value = "\(live)::text"
            conditions.append("\(live) IS NOT NULL")
            if item.narrowing, let surviving = names.survivingColumns[item.table + "." + name],
               let newTable = names.survivingTables[item.table], let newType = destinationSchema.table(named: newTable)?.column(named: surviving)?.type,
               let oldType = table?.column(named: name)?.type {
                // The value as the narrowed column will hold it differs from the value now.
                conditions.append("\(live)::\(raw: newType.rawValue)::\(raw: oldType.rawValue) IS DISTINCT FROM \(live)")
            }
        } else {
            value = "pg_catalog.to_jsonb(source.*)::text"
        }
        if let rows = item.rows { conditions.append("(\(StepAccount.RowSet(rows).sql))") }
        let whereClause: SQL = conditions.isEmpty ? "" : " WHERE \(conditions, joinedBy: " AND ")"
        return "INSERT INTO \(table: TenantArchive.tableName) (step_from, step_to, table_name, column_name, row_id, value) "
            + "SELECT \(bind: .text(from)), \(bind: .text(to)), \(bind: .text(item.table)), \(bind: .text(item.column ?? "")), \(rowID), \(value) "
            + "FROM \(table: liveTable) AS source\(whereClause)"
    }
}
