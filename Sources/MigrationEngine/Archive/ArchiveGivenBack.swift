import EntityModel
import LibPQ
import TypedSQL

/// What a tenant's archive gives back along a plan (`plan --tenant`, in every format): for each
/// adjacent pair the plan crosses, the entries that the pair crossed the other way archived and
/// that the plan's step puts back where the rows still hold what that step left
/// (compare-and-restore), counted per entity and attribute, or per entity for whole rows.
///
/// Not counted: superseded entries (they come back only with `archive restore --superseded`), and
/// entries no step of the plan puts anywhere, such as the rows of a table a mapping fills anew (the
/// run removes them: nothing would use them any more).
public struct ArchiveGivenBack: Sendable, Codable, Hashable {
    /// The pair as the archive keys it: the way the values were taken (`v3 → v2` for a plan that
    /// crosses v2 → v3).
    public var stepFrom: String
    public var stepTo: String
    /// Entries of the pair the plan gives back, over all its items.
    public var entries: Int
    public var items: [Item]

    /// The entries of one archived column, or of the whole rows of one table.
    public struct Item: Sendable, Codable, Hashable {
        /// In model terms, as the pair's first version (``ArchiveGivenBack/stepFrom``) names it:
        /// `Issue.priority` (an attribute), `Issue.status` (a to-one's link), `Issue.labels` (a
        /// to-many's links), or `Status` (whole rows).
        public var property: String
        /// What the entries are: `values`, `links` or `rows`.
        public var kind: String
        /// The table and column as the archive names them (column nil for whole rows).
        public var table: String
        public var column: String?
        public var entries: Int

        /// `15 values of Issue.priority`, `5 rows of Status`.
        public var sentence: String {
            "\(entries) \(entries == 1 ? String(kind.dropLast()) : kind) of \(property)"
        }
    }

    /// `v3 → v2`.
    public var pair: String { "\(stepFrom) → \(stepTo)" }

    /// What `plan` gives back from the archive of the tenant whose schema is `schema`, in the
    /// order the plan crosses the pairs; empty without an archive. Reads the archive only (under
    /// `ACCESS SHARE`, in the caller's transaction or one of its own).
    public static func along(_ plan: MigrationPlan, inSchema schema: String, on connection: Connection) throws -> [ArchiveGivenBack] {
        guard connection.isInTransaction else { return try connection.transaction { try along(plan, inSchema: schema, on: $0) } }
        guard try TenantArchive.lockOwn(inSchema: schema, mode: .accessShare, on: connection) else { return [] }
        // (Read through the row's JSON: an earlier release's archive, not yet upgraded, has no such column.)
        let superseded: SQL = "coalesce((pg_catalog.to_jsonb(a.*) ->> \(literal: TenantArchive.supersededColumn)) = 'true', false)"
        var counts: [ArchivePlan.PairKey: [(table: String, column: String, entries: Int)]] = [:]
        for row in try connection.execute(
            "SELECT step_from, step_to, table_name, column_name, pg_catalog.count(*) FROM \(TenantArchive.table) AS a "
                + "WHERE NOT \(superseded) AND column_name <> $1 GROUP BY 1, 2, 3, 4 ORDER BY 3, 4", schema: schema, [WayBackProof.markerColumn]) {
            let key = ArchivePlan.PairKey(from: try row.decode(String.self, at: 0), to: try row.decode(String.self, at: 1))
            counts[key, default: []].append((try row.decode(String.self, at: 2), try row.decode(String.self, at: 3), Int(try row.decode(Int64.self, at: 4))))
        }
        return plan.steps.flatMap { step in
            step.archivePlan.restores.compactMap { restore -> ArchiveGivenBack? in
                let items = (counts[restore.key] ?? []).compactMap { entry -> Item? in
                    guard restore.putsBack(table: entry.table, column: entry.column, filled: Set(step.archivePlan.names.mappingFilledTables)) else { return nil }
                    return Item(entry, in: restore.entrySchema)
                }
                guard !items.isEmpty else { return nil }
                return ArchiveGivenBack(stepFrom: restore.key.from, stepTo: restore.key.to, entries: items.reduce(0) { $0 + $1.entries }, items: items)
            }
        }
    }
}

extension ArchiveGivenBack.Item {
    /// An archive entry's table and column in model terms, as `schema` (the entries' version's) names them.
    init(_ entry: (table: String, column: String, entries: Int), in schema: RelationalSchema) {
        let table = schema.table(named: entry.table)
        var property = entry.table, kind = "values"
        if entry.column.isEmpty {
            switch table?.origin {
            case let .entity(root)?: (property, kind) = (root, "rows")
            case let .joinTable(entity, relationship)?: (property, kind) = ("\(entity).\(relationship)", "links")
            case nil: kind = "rows"
            }
        } else {
            switch table?.column(named: entry.column)?.origin {
            case let .attribute(entity, attribute)?: property = "\(entity).\(attribute)"
            case let .relationship(entity, relationship)?: (property, kind) = ("\(entity).\(relationship)", "links")
            default: property = "\(entry.table).\(entry.column)"
            }
        }
        self.init(property: property, kind: kind, table: entry.table, column: entry.column.isEmpty ? nil : entry.column, entries: entry.entries)
    }
}

extension PairRestore {
    /// Whether the step puts an entry of this pair back somewhere: whole rows into a table of its
    /// destination that no mapping fills, values into a column its destination has (as
    /// ``StepArchive/restore()`` finds them).
    func putsBack(table: String, column: String, filled: Set<String>) -> Bool {
        if column.isEmpty {
            guard let name = toEnd.table(table) else { return false }
            return !filled.contains(name) && endSchema.table(named: name) != nil
        }
        guard let (name, target) = toEnd.column(column, of: table) else { return false }
        return endSchema.table(named: name)?.column(named: target) != nil
    }
}
