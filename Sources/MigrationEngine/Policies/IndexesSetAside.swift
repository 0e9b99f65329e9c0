import LibPQ
import TypedSQL

/// The plain secondary indexes of a large table whose every row a policy rewrites, dropped while it
/// does and built again afterwards, as a bulk load would do.
///
/// Updating a row that has no room left on its page writes a new version elsewhere, and inserts an
/// entry for it into every index of the table. Where an index's keys do not follow the rows' order
/// (a foreign key's index, say), those inserts land at random places of the index, and once the
/// index outgrows the server's buffers, most of them read a page back first: at 10 million recipe
/// ingredients, the update batches read 12 GB for `recipe_id`'s index. Building the index again
/// sorts its entries once, which costs about as much as updating a tenth of the rows.
///
/// Only what nothing else depends on is set aside: indexes that are valid, not unique and not
/// behind a constraint, on plain columns (no expression, no predicate), in the default tablespace,
/// without a comment, neither the replica identity nor the clustered index, and not attached to a
/// partitioned index. They are dropped together in a savepoint, and kept when that fails (an open
/// cursor of this session that reads one of them). ``restore()`` builds each again from its own
/// definition (`pg_get_indexdef`), under its own name, before the step validates its rows.
///
/// A table is set aside only when it holds `minimumRows` or more (as the server last counted them;
/// a table never counted, by a size of 100 bytes a row), and only once per step: the caller asks
/// when a policy has already filled a batch of updates to it while reading every row of the table.
final class IndexesSetAside {
    /// Below this many rows, a table keeps its indexes: its updates stay in the server's buffers.
    static let defaultMinimumRows: Double = 200_000

    private let connection: Connection
    private let schema: String
    private let minimumRows: Double
    /// Tables already looked at, whether or not they had something to set aside.
    private var examined: Set<String> = []
    /// The `CREATE INDEX` statement of every index set aside, in the order it was dropped.
    private var definitions: [String] = []

    init(schema: String, connection: Connection, minimumRows: Double = IndexesSetAside.defaultMinimumRows) {
        self.schema = schema
        self.connection = connection
        self.minimumRows = minimumRows
    }

    /// Before the first batch of updates to `table` (unqualified) goes out: sets its plain secondary
    /// indexes aside when it is large. Returns how many were dropped.
    @discardableResult
    func setAside(_ table: String) throws -> Int {
        guard examined.insert(table).inserted else { return 0 }
        let candidates = try connection.execute("""
            SELECT pg_catalog.quote_ident(ic.relname), pg_catalog.pg_get_indexdef(i.indexrelid)
            FROM pg_catalog.pg_class c
            JOIN pg_catalog.pg_index i ON i.indrelid = c.oid
            JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
            WHERE c.oid = pg_catalog.to_regclass($1)
              AND CASE WHEN c.reltuples >= 0 THEN c.reltuples ELSE pg_catalog.pg_relation_size(c.oid) / 100.0 END >= $2
              AND NOT i.indisunique AND NOT i.indisprimary AND NOT i.indisexclusion AND NOT i.indisclustered AND NOT i.indisreplident
              AND i.indisvalid AND i.indisready AND i.indislive AND i.indexprs IS NULL AND i.indpred IS NULL
              AND ic.reltablespace = 0 AND ic.relowner = c.relowner
              AND NOT EXISTS (SELECT FROM pg_catalog.pg_constraint k WHERE k.conindid = i.indexrelid)
              AND NOT EXISTS (SELECT FROM pg_catalog.pg_inherits h WHERE h.inhrelid = i.indexrelid OR h.inhparent = i.indexrelid)
              AND NOT EXISTS (SELECT FROM pg_catalog.pg_description d
                              WHERE d.objoid = i.indexrelid AND d.classoid = 'pg_catalog.pg_class'::pg_catalog.regclass)
            ORDER BY ic.relname
            """, [Statement("\(table: table)", schema: schema).sql, minimumRows])
        let indexes = try candidates.map { (name: try $0.decode(String.self, at: 0), definition: try $0.decode(String.self, at: 1)) }
        guard !indexes.isEmpty else { return 0 }
        let drops = indexes.map { Statement("DROP INDEX \(id: schema).\(quotedByServer: $0.name)") }
        let outcome = try connection.pipelineUntilFailure([Statement("SAVEPOINT tm_indexes")] + drops + [Statement("RELEASE SAVEPOINT tm_indexes")])
        if let failure = outcome.failure {
            connection.logger.debug("keeping the indexes of \(table) while the policy updates it: \(failure.message)")
            try connection.pipeline([Statement("ROLLBACK TO SAVEPOINT tm_indexes"), Statement("RELEASE SAVEPOINT tm_indexes")])
            return 0
        }
        definitions += indexes.map(\.definition)
        connection.logger.debug("set aside \(indexes.count) index(es) of \(table) while a policy updates its rows: \(indexes.map(\.name).joined(separator: ", "))")
        return indexes.count
    }

    /// Builds every index set aside again, in one round trip; returns how many. Every cursor on
    /// their tables must be closed (`CREATE INDEX` refuses a table an open cursor reads).
    @discardableResult
    func restore() throws -> Int {
        guard !definitions.isEmpty else { return 0 }
        // pg_get_indexdef's own text, read from the catalog above: PostgreSQL wrote and quoted it.
        let statements = definitions.map { Statement(unsafeSQL: $0) }
        definitions = []
        try connection.pipeline(statements)
        return statements.count
    }
}
