import LibPQ
import TypedSQL

/// Where a catch-up round's tables are: the live ones under the model's names; the shadow's and the
/// delta's each under their naming (``CatchUpRound/shadowNaming``, ``CatchUpRound/deltaNaming``),
/// in schemas of their own on plain PostgreSQL, or all three in the tenant's schema on Citus.
extension CatchUpRound {
    /// A table of the shadow, qualified, named as the shadow names it.
    func shadowTable(_ name: String) -> SQL {
        "\(schema: shadow, table: shadowNaming.name(name))"
    }

    /// A table of the delta, qualified, named as the delta names it.
    func deltaTable(_ name: String) -> SQL {
        "\(schema: delta, table: deltaNaming.name(name))"
    }

    /// `sql`, over the live tables, inside a statement rendered for another schema.
    func inLive(_ sql: SQL) -> SQL {
        sql.naming(schema: live, tables: .model)
    }

    /// `sql`, over the delta's tables, inside a statement rendered for another schema.
    func inDelta(_ sql: SQL) -> SQL {
        sql.naming(schema: delta, tables: deltaNaming)
    }

    /// Whether the delta is built in the live tables' schema (under its own names) rather than in
    /// a schema of its own.
    var deltaInLiveSchema: Bool { delta == live }

    /// Whether the round's work tables (the changed and needed rows, the distinct mappings' keys
    /// and ids) are tables of the live schema under the delta's names, rather than temporary ones:
    /// so with a delta in the live schema. On Citus a temporary table is the coordinator's own, and
    /// Citus plans none of a round's joins of one with the tenant's tables (0A000, "direct joins
    /// between distributed and local tables are not supported"; XX000, "relation … is not
    /// distributed"), while tables of the tenant's schema are colocated: each statement runs whole
    /// on the tenant's worker. They are made in the round's transaction and dropped with the delta.
    var workTablesInLiveSchema: Bool { deltaInLiveSchema }

    /// A work table of the round, qualified.
    func work(_ name: String) -> SQL {
        workTablesInLiveSchema ? deltaTable(name) : "pg_temp.\(id: name)"
    }

    /// `CREATE TABLE` for a work table made `AS` a query that follows.
    func createWork(_ name: String) -> SQL {
        workTablesInLiveSchema ? "CREATE TABLE \(deltaTable(name))" : "CREATE TEMPORARY TABLE \(id: name) ON COMMIT DROP"
    }

    /// `CREATE TABLE` for a work table with `columns` (`(a int, …)`).
    func createWork(_ name: String, columns: SQL) -> SQL {
        workTablesInLiveSchema ? "CREATE TABLE \(deltaTable(name)) \(columns)" : "CREATE TEMPORARY TABLE \(id: name) \(columns) ON COMMIT DROP"
    }

    func shadowHasArchive() throws -> Bool {
        try TableNaming.rendering(shadowNaming, in: shadow) { try TenantArchive.exists(inSchema: shadow, on: connection) }
    }

    func deltaHasArchive() throws -> Bool {
        try TableNaming.rendering(deltaNaming, in: delta) { try TenantArchive.exists(inSchema: delta, on: connection) }
    }

    /// Drops the delta: its schema, or, where it shares the live tables' schema, every relation
    /// under its names (the tables the round made, its work tables among them, and those its
    /// steps made; their indexes and sequences go with them). Its tables were made in the round's
    /// transaction, so nothing else ever saw them.
    func dropDelta() throws {
        guard deltaInLiveSchema else {
            try connection.execute("DROP SCHEMA \(id: delta) CASCADE", schema: delta)
            return
        }
        let tables: [SQL] = try connection.execute("""
            SELECT c.relname::pg_catalog.text FROM pg_catalog.pg_class AS c
            WHERE c.relnamespace = \(bind: delta)::pg_catalog.regnamespace AND c.relkind IN ('r', 'p')
              AND pg_catalog.starts_with(c.relname, \(bind: deltaNaming.prefix))
            """, schema: delta).map { "\(schema: delta, table: try $0.decode(String.self, at: 0))" }
        if !tables.isEmpty { try connection.execute("DROP TABLE \(tables, joinedBy: ", ")", schema: delta) }
    }
}
