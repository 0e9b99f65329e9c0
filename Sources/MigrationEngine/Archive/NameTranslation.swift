import EntityModel

/// Where the tables and columns of one version are in another version along a path of adjacent
/// versions, following renames through every version in between (the same matching a fused
/// inferred step uses). Archive entries are named in the version before the pair that took their
/// values; a restore further along a path, or a fused step's copy, translates those names.
struct NameTranslation: Sendable {
    /// First version's table → last version's table (tables that survive the path).
    private(set) var tables: [String: String] = [:]
    /// First version's table → (its column → the last version's column).
    private(set) var columns: [String: [String: String]] = [:]

    /// The identity on `schema`'s tables and columns.
    init(identity schema: RelationalSchema) {
        for table in schema.tables {
            tables[table.name] = table.name
            columns[table.name] = Dictionary(uniqueKeysWithValues: table.columns.map { ($0.name, $0.name) })
        }
    }

    /// The translation along `versions` (adjacent in their family, crossed in `direction`).
    init(along versions: [ModelVersion], direction: MigrationDirection) {
        guard versions.count > 1 else {
            self = NameTranslation(identity: versions[0].relationalSchema())
            return
        }
        let pairs = zip(versions, versions.dropFirst()).map { VersionPair(source: $0, destination: $1, direction: direction) }
        let correspondence = pairs.dropFirst().reduce(Correspondence.adjacent(pairs[0])) { $0.then(.adjacent($1)) }
        var differ = SchemaDiffer(source: versions[0], destination: versions[versions.count - 1], correspondence: correspondence)
        differ.matchTables()
        differ.matchColumns()
        tables = differ.tableMatch
        columns = differ.columnMatch
    }

    func table(_ name: String) -> String? { tables[name] }

    /// Where a column of the first version is in the last: its table and column.
    func column(_ column: String, of table: String) -> (table: String, column: String)? {
        guard let newTable = tables[table], let newColumn = columns[table]?[column] else { return nil }
        return (newTable, newColumn)
    }

    /// The first version's column of `table` (a first-version table) that becomes `column`.
    func sourceColumn(becoming column: String, of table: String) -> String? {
        columns[table]?.first { $0.value == column }?.key
    }
}
