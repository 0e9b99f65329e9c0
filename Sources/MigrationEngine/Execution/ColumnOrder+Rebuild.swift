import EntityModel
import LibPQ

/// `verify --strict --reorder`: puts the columns of a tenant's tables back in model order on
/// request, as a rollback does by itself (``ColumnOrder``), for tenants whose tables an up
/// migration appended columns to.
public enum ColumnOrderRebuild {
    /// Rebuilds, in the caller's transaction, each table of `version` in `schema` whose columns are
    /// out of model order and that holds at most ``smallTableRows`` rows; returns the tables it put
    /// back in order. A larger table, or one an object of the app's depends on, keeps its order
    /// (`verify --strict` still lists it).
    public static func rebuild(_ version: ModelVersion, inSchema schema: String, on connection: Connection) throws -> [String] {
        try version.relationalSchema().tables.filter { table in
            try ColumnOrder(table: table, schema: schema, connection: connection).restore()
        }.map(\.name)
    }

    /// The most rows a table may hold to be rebuilt.
    public static var smallTableRows: Int { ColumnOrder.smallTableRows }
}
