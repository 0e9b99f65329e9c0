import LibPQ
import TypedSQL

/// What lies outside a tenant's schema yet depends on something in it (a view or a table of
/// another schema over its tables, a table inheriting from one, a foreign key referencing one, a
/// function taking its types): `DROP SCHEMA … CASCADE` would drop it too, with any rows it holds,
/// though it is not the tenant's. `tenant drop` refuses while there is any (2BP01), naming each.
struct OutsideDependents: Error, CustomStringConvertible {
    let tenant: TenantName
    let schema: String
    /// Each, as `pg_describe_object` names it (`view reports.recipes`).
    let objects: [String]

    /// `2BP01`, dependent objects still exist.
    var sqlState: SQLState { "2BP01" }

    var description: String {
        "tenant \(tenant): dropping schema \(schema) would also drop what depends on it from outside: "
            + objects.joined(separator: ", ")
            + ". They are not the tenant's, so nothing was dropped (SQLSTATE \(sqlState)); drop or detach them first"
    }

    /// The objects outside `schema` that depend, directly, on a relation, type or function in it.
    static func find(of schema: String, on connection: Connection) throws -> [String] {
        try connection.execute("""
            WITH s AS (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = $1),
            inside AS (
                SELECT 'pg_catalog.pg_class'::pg_catalog.regclass AS classid, c.oid FROM pg_catalog.pg_class AS c, s WHERE c.relnamespace = s.oid
                UNION ALL
                SELECT 'pg_catalog.pg_type'::pg_catalog.regclass, t.oid FROM pg_catalog.pg_type AS t, s WHERE t.typnamespace = s.oid
                UNION ALL
                SELECT 'pg_catalog.pg_proc'::pg_catalog.regclass, p.oid FROM pg_catalog.pg_proc AS p, s WHERE p.pronamespace = s.oid
            ),
            dependent AS (
                SELECT DISTINCT d.classid, d.objid FROM pg_catalog.pg_depend AS d JOIN inside AS i ON d.refclassid = i.classid AND d.refobjid = i.oid
                WHERE d.deptype = 'n'
            )
            SELECT DISTINCT pg_catalog.pg_describe_object(d.classid, d.objid, 0)
            FROM dependent AS d, s
            WHERE (CASE d.classid
                WHEN 'pg_catalog.pg_class'::pg_catalog.regclass THEN (SELECT c.relnamespace FROM pg_catalog.pg_class AS c WHERE c.oid = d.objid)
                WHEN 'pg_catalog.pg_type'::pg_catalog.regclass THEN (SELECT t.typnamespace FROM pg_catalog.pg_type AS t WHERE t.oid = d.objid)
                WHEN 'pg_catalog.pg_proc'::pg_catalog.regclass THEN (SELECT p.pronamespace FROM pg_catalog.pg_proc AS p WHERE p.oid = d.objid)
                WHEN 'pg_catalog.pg_constraint'::pg_catalog.regclass THEN (SELECT k.connamespace FROM pg_catalog.pg_constraint AS k WHERE k.oid = d.objid)
                WHEN 'pg_catalog.pg_rewrite'::pg_catalog.regclass THEN
                    (SELECT c.relnamespace FROM pg_catalog.pg_rewrite AS r JOIN pg_catalog.pg_class AS c ON c.oid = r.ev_class WHERE r.oid = d.objid)
                WHEN 'pg_catalog.pg_attrdef'::pg_catalog.regclass THEN
                    (SELECT c.relnamespace FROM pg_catalog.pg_attrdef AS a JOIN pg_catalog.pg_class AS c ON c.oid = a.adrelid WHERE a.oid = d.objid)
                WHEN 'pg_catalog.pg_trigger'::pg_catalog.regclass THEN
                    (SELECT c.relnamespace FROM pg_catalog.pg_trigger AS t JOIN pg_catalog.pg_class AS c ON c.oid = t.tgrelid WHERE t.oid = d.objid)
                WHEN 'pg_catalog.pg_policy'::pg_catalog.regclass THEN
                    (SELECT c.relnamespace FROM pg_catalog.pg_policy AS p JOIN pg_catalog.pg_class AS c ON c.oid = p.polrelid WHERE p.oid = d.objid)
                WHEN 'pg_catalog.pg_statistic_ext'::pg_catalog.regclass THEN
                    (SELECT x.stxnamespace FROM pg_catalog.pg_statistic_ext AS x WHERE x.oid = d.objid)
                END) IS DISTINCT FROM s.oid
            ORDER BY 1
            """, [schema]).map { try $0.decode(String.self, at: 0) }
    }
}
