import EntityModel
import LibPQ
import TypedSQL

extension FailureDiagnosis {
    /// The diagnosis of a rebuild of an enum type that failed (SQLSTATE 22P02): the lowest id of a
    /// row holding a value the rebuilt type no longer has, in the first of its columns that has
    /// one (a required column without a default: the others hold NULL or their default there). `before` are the step's operations ahead of the rebuild, to name the columns as the
    /// rolled-back tenant has them.
    static func removedEnumValue(_ rebuild: EnumChange, before: ArraySlice<SchemaOperation>, error: PQError, schema: String,
                                 on connection: Connection) -> FailureDiagnosis? {
        guard case let .rebuild(type, values, columns) = rebuild, error.sqlState?.rawValue == "22P02" else { return nil }
        for column in columns where column.removed.isEmpty {
            var (table, name) = (column.table, column.column)
            for operation in before.reversed() {
                switch operation {
                case let .renameColumn(owner, from, to) where owner == table && to == name: name = from
                case let .renameTable(from, to) where to == table: table = from
                default: break
                }
            }
            let query: SQL = "SELECT id, \(id: name)::text FROM \(table: table) WHERE \(id: name)::text NOT IN (\(literals: values)) ORDER BY id LIMIT 1"
            guard let row = (try? connection.execute(query, schema: schema))?.first,
                  let rowID = try? row.decode(Int64.self, at: 0) else { continue }
            return FailureDiagnosis(schema: schema, table: column.table, column: column.column, type: .enumeration(type), rowID: rowID,
                                    value: try? row.decode(String.self, at: 1), sqlState: error.sqlState,
                                    remedy: "\(column.column) is required and has no default, so such a row has nothing to hold instead "
                                        + "(give it a default or make it optional, and the archive keeps the removed values; or change those rows first)")
        }
        return nil
    }
}
