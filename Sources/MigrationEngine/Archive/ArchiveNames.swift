import EntityModel

/// Where a step's source tables and columns are while the step runs (after its renames, before
/// its drops) and once it ran, so the archive can copy values that are about to go and, at the
/// end, note what the step left in their place (for compare-and-restore).
///
/// Keys are the source version's names: a table, or `table.column`.
public struct ArchiveNames: Sendable, Hashable, Codable {
    /// Source table → its name once the renames ran (also for a table the step drops).
    public var liveTables: [String: String] = [:]
    /// `table.column` → the column's name once the renames ran (a column about to be dropped may
    /// have stepped aside under a temporary name).
    public var liveColumns: [String: String] = [:]
    /// Source table → destination table, for the tables that survive the step.
    public var survivingTables: [String: String] = [:]
    /// `table.column` → destination column, for the columns that survive the step.
    public var survivingColumns: [String: String] = [:]
    /// Destination tables that a mapping of the step fills (rows there are the mapping's, not
    /// the tenant's old rows, so archived rows are never put back into them).
    public var mappingFilledTables: [String] = []
    /// New required columns without a default that a way down adds nullable: the archive gives
    /// their values back, then they become NOT NULL (``RequiredFromArchive``).
    public var requiredFromArchive: [RequiredColumn] = []
    /// Numeric columns a way down narrows in their integer digits (`numeric(8,1)` → `numeric(8,3)`):
    /// they hold a type wide enough for both until the archive gave their values back, then take
    /// `type` (``NarrowedFromArchive``). (Optional: names recorded by an earlier release decode.)
    public var narrowedFromArchive: [NarrowedColumn]? = nil

    /// A destination column, the property it stores (`Entity.attribute`), and its type.
    public struct NarrowedColumn: Sendable, Hashable, Codable {
        public var table: String
        public var column: String
        public var property: String
        public var type: SQLType
    }

    /// A destination column, and the property it stores (`Entity.attribute`).
    public struct RequiredColumn: Sendable, Hashable, Codable {
        public var table: String
        public var column: String
        public var property: String
    }

    public init() {}

    func liveTable(_ table: String) -> String { liveTables[table] ?? table }
    func liveColumn(_ column: String, of table: String) -> String { liveColumns[table + "." + column] ?? column }
}

extension SchemaDiffer {
    /// The names the archive needs (see ``ArchiveNames``).
    var archiveNames: ArchiveNames {
        var names = ArchiveNames()
        for table in old.tables {
            names.liveTables[table.name] = currentName(ofOldTable: table.name)
            if let surviving = tableMatch[table.name] { names.survivingTables[table.name] = surviving }
            for column in table.columns {
                let key = table.name + "." + column.name
                names.liveColumns[key] = currentName(ofOldColumn: column.name, in: table.name)
                if let surviving = columnMatch[table.name]?[column.name] { names.survivingColumns[key] = surviving }
            }
        }
        names.mappingFilledTables = mappingFilledTables.sorted()
        names.requiredFromArchive = requiredFromArchive
        names.narrowedFromArchive = narrowedFromArchive.isEmpty ? nil : narrowedFromArchive
        return names
    }
}
