import EntityModel
import LibPQ
import TypedSQL

/// The tables of one version built in a schema of their own from a tenant's live tables: the
/// shadow an online migration runs its steps on, and the small delta each catch-up round runs
/// them on again.
///
/// The tables are made from the model (the live schema is checked to match it first), each with
/// its columns in the live table's order (ShadowTables+ColumnOrder.swift), bare at first (columns,
/// primary key, unique and check constraints); foreign keys and indexes come once the rows are in,
/// as a bulk load wants. Every statement names its schemas, so it runs on any connection whatever
/// its `search_path`.
public struct ShadowTables: Sendable {
    /// The version whose tables these are.
    public let version: ModelVersion
    /// Where the rows come from: the tenant's schema.
    public let live: String
    /// Where the tables are built.
    public let schema: String
    /// How their names are spelled there: the model's own in a schema of their own (plain
    /// PostgreSQL), ``TableNaming/citusShadow`` next to the live tables in the tenant's schema
    /// (Citus, where only that schema's tables are colocated with the tenant's).
    public let naming: TableNaming

    public init(version: ModelVersion, live: String, schema: String, naming: TableNaming = .model) {
        self.version = version
        self.live = live
        self.schema = schema
        self.naming = naming
    }

    var relational: RelationalSchema { version.relationalSchema() }

    /// `CREATE TABLE` for every table, without foreign keys or indexes, and the options of a
    /// `serial` key's sequence where the shadow's tables have the model's names (the sequence is
    /// then `<table>_id_seq` in the shadow's schema; under another naming it is not covered), and
    /// the comments of the tables and their columns (without them, the swapped-in tables had none).
    /// Each table's columns stand in the order `columnOrder` gives for it (``Table/inColumnOrder(_:)``;
    /// the model's for a table it does not list).
    public func creation(columnOrder: [String: [String]] = [:]) -> [SQL] {
        relational.tables.map { $0.inColumnOrder(columnOrder[$0.name]) }.flatMap {
            [$0.creation.renamed(tables: naming)] + (naming == .model ? $0.keySequenceSettings : []) + $0.commentStatements.map { $0.renamed(tables: naming) }
        }
    }

    /// The foreign keys, then the indexes.
    public var finishing: [SQL] {
        (relational.tables.flatMap(\.foreignKeyAdditions) + relational.tables.flatMap(\.indexCreations)).map { $0.renamed(tables: naming) }
    }

    /// Creates the tables bare, after the version's own enum types and sequences (the sequences
    /// where the live ones stand, see ShadowTables+ModelObjects.swift); with each table's columns
    /// in the live table's order (``liveColumnOrder(on:)``), unless `keepingLiveColumnOrder` is
    /// false (a catch-up round's delta, whose rows are merged by column name), in the model's.
    public func create(on connection: Connection, keepingLiveColumnOrder: Bool = true) throws {
        try ExpressionTrust(version: version).check(on: connection)
        let order = keepingLiveColumnOrder ? try liveColumnOrder(on: connection) : [:]
        try connection.pipeline(
            modelObjectCreation + sequencePositions + creation(columnOrder: order) + autovacuumOff(relational.tables.map { naming.name($0.name) }),
            schema: schema
        )
    }

    /// Adds the foreign keys and indexes.
    public func finish(on connection: Connection) throws {
        try connection.pipeline(finishing, schema: schema)
    }

    /// Gives every table statistics (its autovacuum is off): the steps that run on the copied rows
    /// then plan their statements, and weigh which indexes to set aside, as offline on the live
    /// tables.
    public func analyze(on connection: Connection) throws {
        try connection.pipeline(relational.tables.map { "ANALYZE \(schema: schema, table: naming.name($0.name))" }, schema: schema)
    }

    /// The archive, when the tenant has one: created `LIKE` the live one (columns, defaults and
    /// indexes as they are; under the shadow's naming, `_tm_shadow__tm_archive`), with all of its entries (nobody but the migrator writes it, and no
    /// migrator does while this one holds the tenant). A second copy, ``liveArchive``, keeps the
    /// entries as they were for the catch-up rounds, found by table and row; both have an index on
    /// (table name, row id), the shadow's until the cutover (``archiveRowsIndex``). The second copy
    /// is the run's bookkeeping, dropped with its private schema, and UNLOGGED (no WAL): a crash
    /// ends the run, and the next run starts over.
    ///
    /// - Returns: whether the tenant has an archive.
    @discardableResult
    public func copyArchive(on connection: Connection) throws -> Bool {
        guard try TenantArchive.exists(inSchema: live, on: connection) else { return false }
        let archive = TenantArchive.tableName
        for copy in [archive, Self.liveArchive] {
            let create: SQL = copy == archive ? "CREATE TABLE" : "CREATE UNLOGGED TABLE"
            let index = copy == archive ? Self.archiveRowsIndex : Self.liveArchive + "_rows"
            try connection.pipeline([
                "\(create) \(schema: schema, table: naming.name(copy)) (LIKE \(schema: live, table: archive) INCLUDING ALL)",
                Self.autovacuumOff(schema: schema, table: naming.name(copy)),
                "INSERT INTO \(schema: schema, table: naming.name(copy)) SELECT * FROM \(schema: live, table: archive)",
                "CREATE INDEX \(id: naming.name(index)) ON \(schema: schema, table: naming.name(copy)) (table_name, row_id)",
            ], schema: schema)
        }
        try TableNaming.rendering(naming, in: schema) { try TenantArchive.revokeDefaultGrants(inSchema: schema, on: connection) }
        return true
    }

    /// The copy of the live archive as it was when the shadow was made, in the shadow's schema.
    public static let liveArchive = "_tm_archive_live"
    /// The index the shadow's archive has for catch-up, dropped at the cutover.
    public static let archiveRowsIndex = "_tm_archive_online_rows"

    /// Makes the rows of the change set (`pg_temp._tm_changed`, see ``CatchUpRound``) what they
    /// are in the live tables now: each is deleted, then copied again if it still exists. For the
    /// bare tables, before ``finish(on:)``: after the batches, whose snapshots differ, one such
    /// pass in one snapshot leaves the shadow exactly as the live tables are in that snapshot (a
    /// row changed after its batch was copied is in the log; one that is not was not changed).
    ///
    /// - Returns: the rows copied again.
    @discardableResult
    public func sync(on connection: Connection) throws -> Int {
        try connection.execute("ANALYZE \(CatchUpRound.changed)", schema: schema)
        var pipeline = Pipeline()
        var copies: [Pipeline.Handle] = []
        for table in relational.tables {
            let columns = table.columns.map(\.name)
            let selected: [SQL] = table.columns.map { Self.carried("l", $0) }
            let keys = keysOf(table, in: CatchUpRound.changed)
            pipeline.add(Statement(
                "DELETE FROM \(schema: schema, table: naming.name(table.name)) AS s WHERE \(keyTuple("s", table.primaryKey.columns)) IN (\(keys))",
                schema: schema
            ))
            copies.append(pipeline.add(Statement(
                "INSERT INTO \(schema: schema, table: naming.name(table.name)) (\(ids: columns))\(table.overridingSystemValue) SELECT \(selected, joinedBy: ", ") "
                    + "FROM \(schema: live, table: table.name) AS l WHERE \(keyTuple("l", table.primaryKey.columns)) IN (\(keys))",
                schema: schema
            )))
        }
        let outcome = try connection.pipeline(pipeline)
        return copies.reduce(0) { $0 + (outcome[$1]?.affectedRows ?? 0) }
    }

    /// Where one table's copy stands: the last key copied (nil before the first batch), each key
    /// column's text as the change log spells it (``CapturedKey``), cast back to its type to
    /// compare.
    public struct Cursor: Sendable, Hashable, Codable {
        public var table: String
        public var lastKey: [String]?
        public var done = false

        public init(table: String) {
            self.table = table
        }
    }

    /// Copies the next batch of up to `limit` rows of the cursor's table, in key order, and moves
    /// the cursor past it (marking it done when the batch was short).
    ///
    /// - Returns: the rows copied.
    public func copyBatch(_ cursor: inout Cursor, limit: Int, on connection: Connection) throws -> Int {
        guard let table = relational.table(named: cursor.table) else { cursor.done = true; return 0 }
        let key = table.primaryKey.columns
        let keyTypes = key.map { table.column(named: $0)?.type ?? .bigint }
        let columns = table.columns.map(\.name)
        var condition: SQL = ""
        if let last = cursor.lastKey {
            let keyColumns: [SQL] = key.map { "l.\(id: $0)" }
            let values: [SQL] = zip(last, keyTypes).map { "(\(bind: .text($0)))\($1.cast)" }
            condition = " WHERE (\(keyColumns, joinedBy: ", ")) > (\(values, joinedBy: ", "))"
        }
        let order: [SQL] = key.map { "l.\(id: $0)" }
        let movedKey: [SQL] = key.map { "m.\(id: $0)" }
        let descending: [SQL] = key.map { "m.\(id: $0) DESC" }
        let lastKey: [SQL] = zip(key, keyTypes).map { CapturedKey.text(of: "last.\(id: $0)", $1) }
        let selected: [SQL] = table.columns.map { Self.carried("l", $0) }
        let sql: SQL = "WITH moved AS (INSERT INTO \(schema: schema, table: naming.name(table.name)) (\(ids: columns))\(table.overridingSystemValue) "
            + "SELECT \(selected, joinedBy: ", ") FROM \(schema: live, table: table.name) AS l\(condition) "
            + "ORDER BY \(order, joinedBy: ", ") LIMIT \(bind: .integer(Int64(limit))) RETURNING \(ids: key)) "
            + "SELECT (SELECT pg_catalog.count(*) FROM moved)::pg_catalog.int8, \(lastKey, joinedBy: ", ") "
            + "FROM (SELECT 1) AS one LEFT JOIN (SELECT \(movedKey, joinedBy: ", ") FROM moved AS m ORDER BY \(descending, joinedBy: ", ") LIMIT 1) AS last ON true"
        guard let row = try connection.execute(sql, schema: schema).first else { cursor.done = true; return 0 }
        let count = Int(try row.decode(Int64.self, at: 0))
        if count > 0 { cursor.lastKey = try key.indices.map { try row.decode(String.self, at: $0 + 1) } }
        if count < limit { cursor.done = true }
        return count
    }
}
