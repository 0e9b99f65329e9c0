import EntityModel
import LibPQ

/// The shadow's tables keep the live tables' column order, so that an online run leaves each table
/// with its columns where an offline run leaves them: the steps run on the shadow as offline on the
/// live tables, so a kept column stays where it stood and a new one is appended as `ADD COLUMN`
/// appends it. A tenant made from the model has its tables in the model's order (`id`, the
/// attributes by name, then the foreign keys: docs/ModelFormat.md), which the shadow then keeps;
/// an adopted one (`tenant adopt`) usually has another (Rails' timestamps in the middle, a key
/// that is not first), which an app may read or write by position (`SELECT *`, `INSERT … VALUES`
/// without columns, `COPY` without columns).
extension ShadowTables {
    /// The live tables' columns in their physical order, by table: one catalog query for the whole
    /// tenant's schema (``SchemaSnapshot/columnOrder(inSchema:on:)``).
    public func liveColumnOrder(on connection: Connection) throws -> [String: [String]] {
        try SchemaSnapshot.columnOrder(inSchema: live, on: connection)
    }
}

extension Table {
    /// This table with its columns in the order of `names` (a live table's, nil for the model's
    /// own), then those `names` does not list in the model's order; a name the table does not
    /// have is passed over. The columns themselves, keys, constraints and indexes are unchanged.
    func inColumnOrder(_ names: [String]?) -> Table {
        guard let names else { return self }
        var table = self
        table.columns = names.compactMap { name in columns.first { $0.name == name } } + columns.filter { !names.contains($0.name) }
        return table
    }
}
