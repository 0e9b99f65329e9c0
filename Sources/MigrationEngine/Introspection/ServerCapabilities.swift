import EntityModel
import LibPQ

/// What the server a connection reaches can do, decided once per connection: the one place that
/// tells a Citus coordinator from plain PostgreSQL (docs/Citus.md). Code asks for the capability
/// it needs, by what it needs, not for the kind of server.
public struct ServerCapabilities: Sendable, Hashable {
    /// A Citus coordinator: tenants' tables live on workers (for reports of where they are,
    /// `CitusPlacement`).
    public var isCitus: Bool

    /// Plain PostgreSQL.
    public static let postgreSQL = ServerCapabilities(isCitus: false)
    /// A Citus coordinator with schema-based sharding.
    public static let citus = ServerCapabilities(isCitus: true)

    public init(isCitus: Bool) {
        self.isCitus = isCitus
    }

    /// New schemas become distributed schemas, whose tables live together on one worker (Citus's
    /// schema-based sharding): a tenant schema should, but not the catalog and the scratch schemas
    /// that `verify` and the preflight build and roll back.
    public var distributesNewSchemas: Bool { isCitus }

    /// A setting reaches the sessions that take the locks only through a `SET` statement (Citus
    /// propagates those to the workers, not `set_config`), after
    /// `SET LOCAL citus.propagate_set_commands = 'local'`. Elsewhere `set_config` does, in the
    /// statement that takes the first lock.
    public var propagatesOnlySetStatements: Bool { isCitus }

    /// A policy step that runs offline may hold its tables as its own for the step: set their
    /// secondary indexes aside and take id blocks without asking the sequence each time. Not on
    /// Citus, whose DDL on distributed tables runs on the workers.
    public var holdsPolicyTablesAlone: Bool { !isCitus }

    /// An archive copy can note the rows it took (`INSERT … RETURNING` in a CTE read with `LIMIT`).
    /// Citus plans no such statement on distributed tables.
    public var notesRowsOfCopies: Bool { !isCitus }

    /// STABLE functions such as `jsonb_build_object` may be applied to columns in an `UPDATE`.
    /// Citus refuses that (0A000): the same text is built from IMMUTABLE functions (`ImmutableJSON`).
    public var buildsJSONOfColumnsInUpdates: Bool { !isCitus }

    /// A table cannot move into the tenant's schema as a catalog change (Citus undistributes it on
    /// the way, copying its rows, and refuses a table with an identity column): an online run
    /// builds its shadow inside the tenant's schema and swaps it in by renames, its steps run in
    /// the cutover while writes wait (`InSchemaOnlineRun`, docs/Citus.md).
    public var swapsShadowsInByRenames: Bool { isCitus }

    /// A sequence that a table's column draws from can be changed in place: a key's generation
    /// (`ALTER TABLE … ADD|DROP|SET GENERATED`), its options (`… SET START WITH`), `ALTER SEQUENCE`.
    /// Citus refuses each on a distributed table (0A000), so a plan that does so is refused there
    /// before it runs (``MigrationPlan/inPlaceSequenceAlterations``).
    public var altersColumnSequencesInPlace: Bool { !isCitus }

    /// A foreign key or check can be renamed (`ALTER TABLE … RENAME CONSTRAINT`). Citus refuses
    /// it on a distributed table (0A000), so there such a constraint keeps its name when its table
    /// or column is renamed (``MigrationStep/keepingConstraintNames()``); a primary key or unique
    /// constraint is renamed through its index everywhere.
    public var renamesForeignKeysAndChecks: Bool { !isCitus }

    /// A transaction must allow triggers on the tenants' tables before it creates, alters or drops
    /// one (`citus.enable_unsafe_triggers`; else "triggers are not supported on distributed
    /// tables", XX000).
    public var requiresTriggersToBeAllowed: Bool { isCitus }
}

extension Connection {
    /// What the server can do; asked once per connection (whether it has the Citus extension).
    public var capabilities: ServerCapabilities {
        get throws { ServerCapabilities(isCitus: try hasExtension("citus")) }
    }

    /// With ``ServerCapabilities/distributesNewSchemas``, the statement that keeps schemas created
    /// later in the current transaction (or savepoint) local to the coordinator; none elsewhere.
    /// `SET LOCAL` ends with the transaction, and with the savepoint when that is rolled back.
    public func keepingNewSchemasLocal() throws -> [Statement] {
        try capabilities.distributesNewSchemas ? [Statement("SET LOCAL citus.enable_schema_based_sharding = off")] : []
    }

    /// With ``ServerCapabilities/distributesNewSchemas``, the statement that makes schemas created
    /// later in the current transaction distributed schemas, whatever the database's default says;
    /// none elsewhere.
    public func distributingNewSchemas() throws -> [Statement] {
        try capabilities.distributesNewSchemas ? [Statement("SET LOCAL citus.enable_schema_based_sharding = on")] : []
    }
}
