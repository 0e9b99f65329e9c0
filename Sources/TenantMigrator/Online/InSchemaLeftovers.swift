import LibPQ
import MigrationEngine
import TypedSQL

/// What an online run on Citus (``InSchemaOnlineRun``) leaves in the tenant's own schema when it
/// stops before its cutover commits, or between its commit and the drop of the retired tables:
/// the shadow's tables (`_tm_shadow_…`, with their indexes and identity sequences), the change log,
/// the lease and the capture functions (`_tm_shadow__tm_…`), and tables a cutover retired
/// (`_tm_retired_…`). The capture's triggers on the live tables are removed first by the caller
/// (``OnlineCleanup``, or an offline migration's ``ForeignHooks``), in the same transaction.
///
/// Only objects the migrator owns are dropped: such a schema is the migrator's alone (an online
/// precondition), so another owner means someone changed that since, and the cleanup stops,
/// naming the object, and drops nothing.
enum InSchemaLeftovers {
    /// The prefixes of the names the in-schema layout uses.
    static let prefixes = [TableNaming.citusShadow.prefix, InSchemaSwap.retired.prefix]

    /// One object left: its kind for `DROP`, its name, and whether the migrator owns it.
    struct Object: Hashable {
        let kind: String
        let name: String
        let ownedByMigrator: Bool
    }

    /// The tables (their indexes and owned sequences go with them), standalone sequences, enum
    /// types and functions of `schema` under the layout's names.
    static func find(in schema: String, on connection: Connection) throws -> [Object] {
        try connection.execute("""
            SELECT k.kind, k.name, k.owner = CURRENT_USER FROM (
                SELECT CASE c.relkind WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END AS kind, c.relname::pg_catalog.text AS name,
                       pg_catalog.pg_get_userbyid(c.relowner) AS owner
                FROM pg_catalog.pg_class AS c
                WHERE c.relnamespace = \(bind: schema)::pg_catalog.regnamespace AND c.relkind IN ('r', 'p', 'S')
                  AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend AS d WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
                                  AND d.objid = c.oid AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.deptype IN ('a', 'i'))
                UNION ALL
                SELECT 'FUNCTION', p.proname::pg_catalog.text, pg_catalog.pg_get_userbyid(p.proowner)
                FROM pg_catalog.pg_proc AS p WHERE p.pronamespace = \(bind: schema)::pg_catalog.regnamespace AND p.pronargs = 0
                UNION ALL
                SELECT 'TYPE', t.typname::pg_catalog.text, pg_catalog.pg_get_userbyid(t.typowner)
                FROM pg_catalog.pg_type AS t WHERE t.typnamespace = \(bind: schema)::pg_catalog.regnamespace AND t.typtype = 'e'
            ) AS k
            WHERE pg_catalog.starts_with(k.name, \(bind: prefixes[0])) OR pg_catalog.starts_with(k.name, \(bind: prefixes[1]))
            ORDER BY 1, 2
            """).map { Object(kind: try $0.decode(String.self, at: 0), name: try $0.decode(String.self, at: 1), ownedByMigrator: try $0.decode(Bool.self, at: 2)) }
    }

    /// Whether anything of the layout is left in `schema`.
    static func exist(in schema: String, on connection: Connection) throws -> Bool {
        try !find(in: schema, on: connection).isEmpty
    }

    /// Drops everything of the layout in `schema`, in the caller's transaction, after the capture's
    /// triggers went (the functions they call go here): the tables in one statement, then
    /// sequences, functions and types.
    ///
    /// - Throws: ``ForeignLeftover`` (nothing dropped) when one is not the migrator's.
    static func drop(in schema: String, on connection: Connection) throws {
        let objects = try find(in: schema, on: connection)
        if let foreign = objects.first(where: { !$0.ownedByMigrator }) { throw ForeignLeftover(schema: schema, object: foreign) }
        func named(_ kind: String) -> [SQL] { objects.filter { $0.kind == kind }.map { "\(schema: schema, table: $0.name)" } }
        // The tables in one statement: foreign keys between them need no CASCADE.
        var statements: [Statement] = named("TABLE").isEmpty ? [] : [Statement("DROP TABLE IF EXISTS \(named("TABLE"), joinedBy: ", ")")]
        statements += named("SEQUENCE").map { Statement("DROP SEQUENCE IF EXISTS \($0)") }
        statements += named("FUNCTION").map { Statement("DROP FUNCTION IF EXISTS \($0)()") }
        statements += named("TYPE").map { Statement("DROP TYPE IF EXISTS \($0)") }
        if !statements.isEmpty { try connection.pipeline(statements) }
    }
}

/// An object under the names of an online run's in-schema layout (docs/Citus.md) that the migrator
/// does not own: the cleanup drops nothing.
struct ForeignLeftover: Error, CustomStringConvertible {
    let schema: String
    let object: InSchemaLeftovers.Object

    var description: String {
        "\(object.kind.lowercased()) \(schema).\(object.name) has the name of an online run's object but is not the migrator's: "
            + "nothing was dropped. Drop it (as its owner or a superuser), check what else that role made, then run again"
    }
}
