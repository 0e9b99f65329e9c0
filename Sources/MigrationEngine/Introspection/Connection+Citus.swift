import EntityModel
import LibPQ

/// What the migrator does differently on a Citus coordinator (docs/Citus.md).
///
/// With schema-based sharding, Citus turns every new schema into a distributed schema whose tables
/// live together on one worker. That is what a tenant schema should become, but not the catalog and
/// not the scratch schemas that `verify` and the preflight build and roll back: those stay local.
extension Connection {
    /// Whether the connected database has the Citus extension; asked once per connection.
    public var isCitus: Bool {
        get throws { try hasExtension("citus") }
    }

    /// On Citus, the statement that keeps schemas created later in the current transaction (or
    /// savepoint) local to the coordinator; none elsewhere. `SET LOCAL` ends with the transaction,
    /// and with the savepoint when that is rolled back.
    public func keepingNewSchemasLocal() throws -> [Statement] {
        try isCitus ? [Statement("SET LOCAL citus.enable_schema_based_sharding = off")] : []
    }

    /// On Citus, the statement that makes schemas created later in the current transaction
    /// distributed schemas, whatever the database's default says; none elsewhere.
    public func distributingNewSchemas() throws -> [Statement] {
        try isCitus ? [Statement("SET LOCAL citus.enable_schema_based_sharding = on")] : []
    }
}
