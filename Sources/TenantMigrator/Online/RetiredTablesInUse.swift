import LibPQ

/// The retired tables of an online migration (`_tm_retired_<oid>`) that something outside their
/// schema depends on: a function that only names a live table's row type, made during the
/// cutover, after its check of what depends on the live tables and before its commit (such a
/// function takes no lock on the table, so nothing the cutover holds keeps it out), names the
/// retired table's row type once the cutover commits. Dropping the schema with `CASCADE` would drop
/// that function with it, though it is not the migrator's; so the next online run of the tenant,
/// `archive prune` and `tenant drop` refuse instead, naming it (2BP01), and keep the retired tables.
public struct RetiredTablesInUse: Error, Sendable, CustomStringConvertible {
    /// The retired tables' schema.
    public let schema: String
    /// Each, as `pg_describe_object` names it (`function outside.recipe_label(_tm_retired_16384.recipe)`).
    public let objects: [String]

    /// `2BP01`, dependent objects still exist.
    public var sqlState: SQLState { "2BP01" }

    public var description: String {
        "the tables an online migration retired (schema \(schema)) cannot be dropped: what lies outside depends on them: "
            + objects.joined(separator: ", ")
            + ". It was made while that migration cut over and names the old tables, not the tenant's; dropping them would drop it too, "
            + "so nothing was dropped (SQLSTATE \(sqlState)). Drop it, or make it again over the tenant's tables and drop the old one, then run this again"
    }

    /// What lies outside `schema` and depends on what is in it (``OutsideDependents/find(of:on:)``).
    static func find(in schema: String, on connection: Connection) throws -> [String] {
        try OutsideDependents.find(of: schema, on: connection)
    }
}
