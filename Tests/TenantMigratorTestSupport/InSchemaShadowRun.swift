import EntityModel
import LibPQ
import MigrationEngine

/// An online step by hand on a shadow inside the tenant's schema (the layout Citus needs,
/// docs/Citus.md): the source version's shadow built under ``TableNaming/citusShadow``, filled by
/// the copy's batches (and the live archive copied, ``ShadowTables/copyArchive(on:)``), migrated by the ``StepExecutor`` under that naming (its statements, archive,
/// validation, policies and column order as an online run's: `Options(online: true)` unless
/// `options` says otherwise), and
/// swapped in by ``InSchemaSwap`` in one transaction, after one swap rolled back to a savepoint.
/// `beforeSwap` runs between the step and the swap, in the transaction.
///
/// - Returns: the step's statistics.
@discardableResult
public func migrateThroughAnInSchemaShadow(
    schema: String, family: ModelFamily, mappings: [MappingModel] = [], hooks: PolicyRegistry = PolicyRegistry(), from source: String, to destination: String,
    options: StepExecutor.Options = .init(online: true), on connection: Connection, beforeSwap: () throws -> Void = {}
) throws -> StepStatistics {
    let version = family.version(named: source)!
    let liveTables = version.relationalSchema().tables.map(\.name)
    let shadow = ShadowTables(version: version, live: schema, schema: schema, naming: .citusShadow)
    try shadow.create(on: connection)
    for table in liveTables {
        var cursor = ShadowTables.Cursor(table: table)
        while !cursor.done { _ = try shadow.copyBatch(&cursor, limit: 25, on: connection) }
    }
    try shadow.finish(on: connection)
    try shadow.analyze(on: connection)
    // The live archive, if any, copied as `_tm_shadow__tm_archive`, steps aside with the tables.
    let archived = try shadow.copyArchive(on: connection)
    let liveRelations = liveTables + (archived ? [TenantArchive.tableName] : [])
    let step = try MigrationPlanner(family: family, mappings: mappings, hooks: hooks).plan(from: source, to: destination).steps[0]
    var executor = StepExecutor(schema: schema, connection: connection, options: options)
    executor.naming = .citusShadow
    struct RolledBack: Error {}
    let statistics = try connection.transaction { connection -> StepStatistics in
        let statistics = try executor.run(step)
        // Tables the step made (the archive) get autovacuum off as the copied ones; the live ones keep theirs.
        try ShadowTables(version: step.destination, live: schema, schema: schema, naming: .citusShadow)
            .turnAutovacuumOffOnEveryTable(but: [], on: connection)
        try beforeSwap()
        if archived {
            // The run's own copy for catch-up, and the shadow archive's index for it, go first.
            try connection.execute("DROP TABLE \(table: TableNaming.citusShadow.name(ShadowTables.liveArchive))", schema: schema)
            try connection.execute("DROP INDEX \(table: TableNaming.citusShadow.name(ShadowTables.archiveRowsIndex))", schema: schema)
        }
        let swap = InSchemaSwap(schema: schema, live: liveRelations)
        do {
            try connection.savepoint { connection in
                try swap.run(on: connection)
                throw RolledBack()
            }
        } catch is RolledBack {}
        try swap.run(on: connection)
        // Autovacuum, off while the shadow was built, is the tables' again.
        let swapped = step.destination.relationalSchema().tables.map(\.name) + (try TenantArchive.exists(inSchema: schema, on: connection) ? [TenantArchive.tableName] : [])
        try connection.pipeline(swapped.map { ShadowTables.autovacuumReset(schema: schema, table: $0) }, schema: schema)
        return statistics
    }
    let retired: [SQL] = liveRelations.map { "\(table: InSchemaSwap.retired.name($0))" }
    try connection.execute("DROP TABLE \(retired, joinedBy: ", ")", schema: schema)
    return statistics
}

extension Connection {
    /// The tables of `schema` that have storage parameters of their own (`reloptions`), such as
    /// autovacuum turned off.
    public func tablesWithOptions(of schema: String) throws -> [String] {
        try execute("""
            SELECT relname::text FROM pg_catalog.pg_class WHERE relnamespace = \(bind: schema)::regnamespace AND relkind = 'r' AND reloptions IS NOT NULL ORDER BY 1
            """).map { try $0.decode(String.self, at: 0) }
    }

    /// The tables, indexes and sequences of `schema` whose names are `LIKE` `pattern`.
    public func relations(of schema: String, like pattern: String) throws -> [String] {
        try execute("""
            SELECT relname::text FROM pg_catalog.pg_class WHERE relnamespace = \(bind: schema)::regnamespace AND relname LIKE \(bind: pattern) ORDER BY 1
            """).map { try $0.decode(String.self, at: 0) }
    }

    /// `table`'s columns in order.
    public func columns(of schema: String, _ table: String) throws -> [String] {
        try execute("""
            SELECT attname::text FROM pg_catalog.pg_attribute WHERE attrelid = \(qualifiedNameLiteral: table)::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum
            """, schema: schema).map { try $0.decode(String.self, at: 0) }
    }

    /// What `schema` holds, as PostgreSQL describes it, with the schema's name taken out: each
    /// relation and its kind, each table's columns in order (type, nullability, identity,
    /// default), its constraints and its indexes; the migrator's own tables (`_tm_archive`) aside.
    public func layout(of schema: String) throws -> [String] {
        try execute("""
            SELECT 'relation ' || c.relname || ' ' || c.relkind::text FROM pg_catalog.pg_class AS c WHERE c.relnamespace = \(bind: schema)::regnamespace
            UNION ALL
            SELECT 'column ' || c.relname || '.' || a.attname || ' ' || pg_catalog.format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text
                   || ' ' || a.attidentity::text || ' ' || coalesce(pg_catalog.pg_get_expr(d.adbin, d.adrelid), '')
                   || ' #' || pg_catalog.row_number() OVER (PARTITION BY c.oid ORDER BY a.attnum)
            FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_attribute AS a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
            LEFT JOIN pg_catalog.pg_attrdef AS d ON d.adrelid = c.oid AND d.adnum = a.attnum
            WHERE c.relnamespace = \(bind: schema)::regnamespace AND c.relkind = 'r'
            UNION ALL
            SELECT 'constraint ' || c.relname || '.' || k.conname || ' ' || pg_catalog.pg_get_constraintdef(k.oid)
            FROM pg_catalog.pg_constraint AS k JOIN pg_catalog.pg_class AS c ON c.oid = k.conrelid WHERE c.relnamespace = \(bind: schema)::regnamespace
            UNION ALL
            SELECT 'index ' || pg_catalog.pg_get_indexdef(x.indexrelid)
            FROM pg_catalog.pg_index AS x JOIN pg_catalog.pg_class AS c ON c.oid = x.indrelid WHERE c.relnamespace = \(bind: schema)::regnamespace
            ORDER BY 1
            """).map { try $0.decode(String.self, at: 0).replacingOccurrences(of: schema, with: "<schema>") }
            .filter { !$0.contains(" _tm_") && !$0.contains("._tm_") }
    }

    /// `table`'s rows as JSON, by key.
    public func rows(of schema: String, _ table: String) throws -> [String] {
        try execute("SELECT pg_catalog.row_to_json(t)::text FROM \(table: table) AS t ORDER BY t.id", schema: schema)
            .map { try $0.decode(String.self, at: 0) }
    }
}

extension Connection {
    /// The entries of `schema`'s archive (`_tm_archive`), each as JSON without its time (and
    /// without its `target`, with `withoutTargets`), in order; empty when the schema has none.
    public func archiveEntries(of schema: String, withoutTargets: Bool = false) throws -> [String] {
        guard try TenantArchive.exists(inSchema: schema, on: self) else { return [] }
        let dropped: SQL = withoutTargets ? " - 'target'" : ""
        return try execute("""
            SELECT (pg_catalog.to_jsonb(a) - 'archived_at'\(dropped))::text FROM \(table: TenantArchive.tableName) AS a
            ORDER BY a.step_from, a.step_to, a.table_name, a.column_name, a.row_id, a.value
            """, schema: schema).map { try $0.decode(String.self, at: 0) }
    }
}
