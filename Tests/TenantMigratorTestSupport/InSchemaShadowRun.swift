import EntityModel
import LibPQ
import MigrationEngine

/// An online step by hand on a shadow inside the tenant's schema (the layout Citus needs,
/// docs/Citus.md): the source version's shadow built under ``TableNaming/citusShadow``, filled by
/// the copy's batches, migrated by the step's own statements renamed for it, and swapped in by
/// ``InSchemaSwap`` in one transaction, after one swap rolled back to a savepoint. Without the
/// archive, validation or column-order restore of a real run (the statements alone).
/// `beforeSwap` runs between the step and the swap, in the transaction.
public func migrateThroughAnInSchemaShadow(
    schema: String, family: ModelFamily, mappings: [MappingModel] = [], from source: String, to destination: String, on connection: Connection,
    beforeSwap: () throws -> Void = {}
) throws {
    let version = try family.version(named: source)!
    let liveTables = version.relationalSchema().tables.map(\.name)
    let shadow = ShadowTables(version: version, live: schema, schema: schema, naming: .citusShadow)
    try shadow.create(on: connection)
    for table in liveTables {
        var cursor = ShadowTables.Cursor(table: table)
        while !cursor.done { _ = try shadow.copyBatch(&cursor, limit: 25, on: connection) }
    }
    try shadow.finish(on: connection)
    let step = try MigrationPlanner(family: family, mappings: mappings).plan(from: source, to: destination).steps[0]
    let statements = step.statements.filter { !$0.text(schema: schema).hasPrefix("--") }.map { $0.renamed(tables: .citusShadow) }
    try connection.execute("BEGIN")
    do {
        for sql in statements { try connection.execute(sql, schema: schema) }
        try beforeSwap()
        let swap = InSchemaSwap(schema: schema, live: liveTables)
        try connection.execute("SAVEPOINT swap")
        try swap.run(on: connection)
        try connection.execute("ROLLBACK TO SAVEPOINT swap")
        try swap.run(on: connection)
        try connection.execute("COMMIT")
    } catch {
        _ = try? connection.execute("ROLLBACK")
        throw error
    }
    let retired: [SQL] = liveTables.map { "\(table: InSchemaSwap.retired.name($0))" }
    try connection.execute("DROP TABLE \(retired, joinedBy: ", ")", schema: schema)
}

extension Connection {
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
