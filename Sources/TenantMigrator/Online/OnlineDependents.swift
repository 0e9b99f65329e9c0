import LibPQ
import TypedSQL

/// What the model does not define yet hangs on a tenant's live tables, where an online cutover
/// would leave it behind: a view or a rule (of any schema) reading one, a table inheriting from
/// one, a foreign key from another schema's table referencing one, a function or a column of
/// another table using one's row type, a trigger, rule, row security policy or publication on
/// one; and a table of another schema that one inherits from (or is a partition of), whose reads
/// would go on reading the retired table's rows. The cutover moves the live tables to the retired
/// schema and the shadow's into their place, so each such object would go on pointing at the
/// retired table (a view would read the old rows, a foreign key check the old keys, a trigger
/// never fire again) or, with the retired tables, be dropped with them. An offline migration
/// alters the tables in place and keeps them.
///
/// An online run refuses the tenant before it starts, and again under the cutover's ACCESS
/// EXCLUSIVE lock, naming each object (SQLSTATE 2BP01); nothing is changed, the tenant stays at
/// its version. Each such object is made under a lock on the table that this one excludes, so
/// none appears between that check and the commit; all but a function that only names a table's
/// row type as an argument or result type (no lock), which then names the retired table's: the
/// retired tables are then never dropped with it (``RetiredTablesInUse``).
public struct OnlineDependents: Error, Sendable, CustomStringConvertible {
    public let tenant: TenantName
    /// The tenant's version, which it keeps.
    public let version: String
    /// Each object as `pg_describe_object` names it, with the tenant's tables it depends on
    /// (`view reports.recipe_names (on table tenant_acme.recipe)`).
    public let objects: [String]

    /// `2BP01`, dependent objects still exist.
    public var sqlState: SQLState { "2BP01" }

    public var description: String {
        "tenant \(tenant) cannot migrate online: what the model does not define depends on its tables, and the cutover, which "
            + "replaces them, would leave it on the old ones: " + objects.joined(separator: "; ")
            + ". Nothing was changed, the tenant is still at \(version) (SQLSTATE \(sqlState)); drop or detach them, or migrate the tenant offline"
    }

    /// The objects that depend on the tables of `schema` and that the model does not define, each
    /// with the tables it reads or refers to (a trigger, rule or policy on a table names it
    /// already); the change capture's triggers are the run's own.
    static func find(onTablesOf schema: String, on connection: Connection) throws -> [String] {
        try connection.execute(query, [schema, ChangeCapture.rowTrigger, ChangeCapture.truncateTrigger]).map {
            let object = try $0.decode(String.self, at: 0)
            return try $0.decode(String?.self, at: 1).map { "\(object) (on \($0))" } ?? object
        }
    }

    /// Throws ``OnlineDependents`` when ``find(onTablesOf:on:)`` finds any.
    static func refuse(_ tenant: TenantName, at version: String, schema: String, on connection: Connection) throws {
        let objects = try find(onTablesOf: schema, on: connection)
        if !objects.isEmpty { throw OnlineDependents(tenant: tenant, version: version, objects: objects) }
    }

    /// `pg_depend` on each table of the schema and on its row type (two joins the index on
    /// `refclassid, refobjid` serves), less what belongs to the tenant's tables themselves:
    /// indexes, sequences, defaults and the constraints of its own tables (their keys, checks and
    /// the foreign keys between them), internal triggers and the run's capture triggers. A view is
    /// named rather than its `_RETURN` rule; a temporary view or table (a session's own, gone with
    /// it) is left: it keeps pointing at the retired table, on which nobody keeps a right. Then the
    /// parents outside the schema (`pg_inherits`).
    static let query: SQL = """
        WITH s AS (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = $1),
        live AS (SELECT c.oid, c.reltype FROM pg_catalog.pg_class AS c, s WHERE c.relnamespace = s.oid AND c.relkind IN ('r', 'p')),
        found AS (
            SELECT d.classid, d.objid, d.deptype, d.refclassid, d.refobjid
            FROM pg_catalog.pg_depend AS d JOIN live AS l ON d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.refobjid = l.oid
            UNION ALL
            SELECT d.classid, d.objid, d.deptype, 'pg_catalog.pg_class'::pg_catalog.regclass, l.oid
            FROM pg_catalog.pg_depend AS d JOIN live AS l ON d.refclassid = 'pg_catalog.pg_type'::pg_catalog.regclass AND d.refobjid = l.reltype
        ),
        kept AS (
            SELECT f.*, (SELECT r.ev_class FROM pg_catalog.pg_rewrite AS r WHERE f.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass
                                                                           AND r.oid = f.objid AND r.rulename = '_RETURN') AS view
            FROM found AS f
            WHERE CASE
                WHEN f.classid = 'pg_catalog.pg_trigger'::pg_catalog.regclass THEN EXISTS (
                    SELECT 1 FROM pg_catalog.pg_trigger AS t WHERE t.oid = f.objid AND NOT t.tgisinternal AND t.tgname NOT IN ($2, $3))
                WHEN f.classid IN ('pg_catalog.pg_rewrite'::pg_catalog.regclass, 'pg_catalog.pg_policy'::pg_catalog.regclass,
                                   'pg_catalog.pg_publication_rel'::pg_catalog.regclass) THEN f.deptype IN ('n', 'a')
                WHEN f.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass THEN f.deptype = 'n' AND NOT EXISTS (
                    SELECT 1 FROM pg_catalog.pg_constraint AS k JOIN live AS l ON l.oid = k.conrelid WHERE k.oid = f.objid)
                WHEN f.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass THEN f.deptype = 'n' AND NOT EXISTS (
                    SELECT 1 FROM pg_catalog.pg_attrdef AS a JOIN live AS l ON l.oid = a.adrelid WHERE a.oid = f.objid)
                ELSE f.deptype = 'n'
            END
        )
        SELECT coalesce(pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, k.view, 0), pg_catalog.pg_describe_object(k.classid, k.objid, 0)),
               pg_catalog.string_agg(DISTINCT pg_catalog.pg_describe_object(k.refclassid, k.refobjid, 0), ', ') FILTER (WHERE k.deptype = 'n')
        FROM kept AS k
        WHERE NOT EXISTS (
            SELECT 1 FROM pg_catalog.pg_class AS c
            WHERE c.oid = coalesce(k.view, CASE WHEN k.classid = 'pg_catalog.pg_class'::pg_catalog.regclass THEN k.objid END) AND c.relpersistence = 't')
        GROUP BY 1
        UNION ALL
        SELECT pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, i.inhrelid, 0) || ' inherits from '
                   || pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, i.inhparent, 0), NULL
        FROM pg_catalog.pg_inherits AS i JOIN live AS l ON l.oid = i.inhrelid
        WHERE i.inhparent NOT IN (SELECT live.oid FROM live)
        ORDER BY 1
        """
}
