import LibPQ
import TypedSQL

/// The cutover of a shadow built inside the tenant's schema under a naming of its own
/// (``TableNaming/citusShadow``, as Citus needs: docs/Citus.md): renames only, for the caller's
/// transaction. First the live tables step aside, with every name they hold in the schema's one
/// namespace (their indexes, which carry their primary key's and unique constraints' names, and
/// the sequences they own, identity's included), to the ``retired`` naming; then every name of
/// the shadow (tables, indexes, sequences) takes the model's. A rename is a catalog change: on
/// Citus the shards stay where they are, on the tenant's worker, and no row moves. Foreign keys
/// and checks keep the model's names in the shadow (``TableNaming`` spells only the schema's
/// namespace), which is as well: Citus refuses to rename a distributed table's constraint (0A000).
///
/// The names are read from PostgreSQL's catalog, so the swap renames what is there rather than
/// what the model says should be; a name too long for its retired or model form is refused
/// before anything is renamed.
public struct InSchemaSwap: Sendable {
    /// The tenant's schema, holding the live tables and the shadow.
    public let schema: String
    /// The live tables that step aside, by their names now.
    public let live: [String]
    /// The shadow's naming.
    public let shadow: TableNaming

    /// The names the live tables and theirs take.
    public static let retired = TableNaming(prefix: "_tm_retired_")

    public init(schema: String, live: [String], shadow: TableNaming = .citusShadow) {
        self.schema = schema
        self.live = live
        self.shadow = shadow
    }

    /// One name to change: `ALTER <kind> "schema"."from" RENAME TO "to"` (an index's rename renames
    /// the primary key or unique constraint it carries).
    public struct Rename: Sendable, Hashable {
        public var kind: Kind
        public var from: String
        public var to: String

        /// What is renamed.
        public enum Kind: String, Sendable, CaseIterable { case table = "TABLE", index = "INDEX", sequence = "SEQUENCE" }

        var sql: SQL {
            "ALTER \(keyword: kind) \(SQL.schema).\(id: from) RENAME TO \(id: to)"
        }
    }

    /// The renames, in order, as the catalog has the names now.
    public func renames(on connection: Connection) throws -> [Rename] {
        // Every table, index and sequence of the schema, with the table an index or an owned
        // (identity, serial) sequence belongs to.
        let relations = try connection.execute("""
            SELECT c.relname::pg_catalog.text, c.relkind::pg_catalog.text,
                   coalesce((SELECT t.relname FROM pg_catalog.pg_index AS x JOIN pg_catalog.pg_class AS t ON t.oid = x.indrelid
                             WHERE x.indexrelid = c.oid),
                            (SELECT t.relname FROM pg_catalog.pg_depend AS d JOIN pg_catalog.pg_class AS t ON t.oid = d.refobjid
                             WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objid = c.oid
                               AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.deptype IN ('a', 'i') LIMIT 1))::pg_catalog.text
            FROM pg_catalog.pg_class AS c
            WHERE c.relnamespace = \(bind: schema)::pg_catalog.regnamespace AND c.relkind IN ('r', 'p', 'i', 'S')
            ORDER BY c.relname
            """).map { row in
                (name: try row.decode(String.self, at: 0), kind: Self.kind(try row.decode(String.self, at: 1)), owner: try row.decode(String?.self, at: 2))
            }
        let liveTables = Set(live)
        let aside = relations.filter { liveTables.contains($0.kind == .table ? $0.name : $0.owner ?? "") }
            .map { Rename(kind: $0.kind, from: $0.name, to: Self.retired.name($0.name)) }
        let prefix = shadow.prefix
        let shadowRelations = relations.filter { $0.name.hasPrefix(prefix) }
            .map { Rename(kind: $0.kind, from: $0.name, to: String($0.name.dropFirst(prefix.count))) }
        let all = aside + shadowRelations
        let tooLong = all.filter { $0.to.utf8.count > TableNaming.maximumNameBytes }.map(\.from)
        guard tooLong.isEmpty else { throw SwapRefused(names: tooLong) }
        return all
    }

    /// Renames, in the caller's transaction (which holds the tables' locks): the live tables'
    /// names aside, then the shadow's to the model's.
    public func run(on connection: Connection) throws {
        let renames = try renames(on: connection)
        for rename in renames { try connection.execute(rename.sql, schema: schema) }
    }

    /// A name that would be cut at 63 bytes once renamed.
    public struct SwapRefused: Error, CustomStringConvertible {
        public let names: [String]
        public var description: String {
            "the swap inside the tenant's schema would cut names to \(TableNaming.maximumNameBytes) bytes: \(names.joined(separator: ", ")); migrate offline"
        }
    }

    private static func kind(_ relkind: String) -> Rename.Kind {
        switch relkind {
        case "i": .index
        case "S": .sequence
        default: .table
        }
    }
}
