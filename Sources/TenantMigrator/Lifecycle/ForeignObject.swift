import LibPQ

/// An object in a tenant schema that the model does not define: a trigger, function, view,
/// sequence, row-level security policy, rule, type or other object someone else created there,
/// or a right on the schema that lets a role create such objects. `verify` reports each one,
/// because code in a tenant schema is the way an untrusted tenant role would try to run with
/// the migrator's rights (docs/Security.md).
public struct ForeignObject: Sendable, Codable, Hashable, CustomStringConvertible {
    /// What kind of object it is: `trigger`, `function`, `procedure`, `aggregate`, `view`,
    /// `materialized view`, `sequence`, `foreign table`, `policy`, `rule`, `type`, `domain`,
    /// `operator`, `collation`, `text search configuration`, `extension`, `inheritance` (a table
    /// inheriting from, or a partition of, another, where either is the tenant's: the model defines
    /// none, and a migration refuses it), or `privilege` for a `CREATE` right on the schema held by a
    /// role other than its owner.
    public var kind: String
    /// Its name, qualified by its table where it belongs to one (`recipe.audit`), with the
    /// argument types for functions (`notify(text)`), or the role for privileges.
    public var name: String
    /// Its owner.
    public var owner: String

    public var description: String { "\(kind) \(name) (owner \(owner)) is not defined by the model" }

    /// Every foreign object in `schema`, sorted by kind and name.
    ///
    /// Tables are not listed here: the schema comparison reports extra tables. Sequences that
    /// belong to a model column (identity or serial) are not foreign.
    static func inventory(inSchema schema: String, on connection: Connection) throws -> [ForeignObject] {
        try connection.execute(Self.query, [schema]).map { row in
            ForeignObject(kind: try row.decode(String.self, at: 0), name: try row.decode(String.self, at: 1), owner: try row.decode(String.self, at: 2))
        }
    }

    static let query: SQL = """
        WITH s AS (SELECT oid, nspowner FROM pg_catalog.pg_namespace WHERE nspname = $1)
        SELECT kind, name, owner FROM (
            SELECT 'trigger' AS kind, c.relname || '.' || t.tgname AS name, pg_catalog.pg_get_userbyid(c.relowner) AS owner
            FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid, s
            WHERE c.relnamespace = s.oid AND NOT t.tgisinternal
            UNION ALL
            SELECT CASE p.prokind WHEN 'p' THEN 'procedure' WHEN 'a' THEN 'aggregate' WHEN 'w' THEN 'window function' ELSE 'function' END,
                   p.proname || '(' || pg_catalog.pg_get_function_identity_arguments(p.oid) || ')', pg_catalog.pg_get_userbyid(p.proowner)
            FROM pg_catalog.pg_proc p, s WHERE p.pronamespace = s.oid
            UNION ALL
            SELECT CASE c.relkind WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'f' THEN 'foreign table'
                                  WHEN 'S' THEN 'sequence' ELSE 'composite type' END,
                   c.relname, pg_catalog.pg_get_userbyid(c.relowner)
            FROM pg_catalog.pg_class c, s
            WHERE c.relnamespace = s.oid AND c.relkind IN ('v', 'm', 'f', 'S', 'c')
              AND NOT (c.relkind = 'S' AND EXISTS (
                  SELECT 1 FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class o ON o.oid = d.refobjid
                  WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objid = c.oid
                    AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.deptype IN ('a', 'i')
                    AND o.relnamespace = s.oid AND o.relkind IN ('r', 'p')))
            UNION ALL
            SELECT 'policy', c.relname || '.' || pol.polname, pg_catalog.pg_get_userbyid(c.relowner)
            FROM pg_catalog.pg_policy pol JOIN pg_catalog.pg_class c ON c.oid = pol.polrelid, s WHERE c.relnamespace = s.oid
            UNION ALL
            SELECT 'rule', c.relname || '.' || r.rulename, pg_catalog.pg_get_userbyid(c.relowner)
            FROM pg_catalog.pg_rewrite r JOIN pg_catalog.pg_class c ON c.oid = r.ev_class, s
            WHERE c.relnamespace = s.oid AND r.rulename <> '_RETURN'
            UNION ALL
            SELECT CASE t.typtype WHEN 'd' THEN 'domain' ELSE 'type' END, t.typname, pg_catalog.pg_get_userbyid(t.typowner)
            FROM pg_catalog.pg_type t, s
            WHERE t.typnamespace = s.oid AND t.typtype IN ('d', 'e', 'r', 'm', 'b', 'p')
              AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_type e WHERE e.typarray = t.oid)
            UNION ALL
            SELECT 'operator', o.oprname || '(' || pg_catalog.format_type(o.oprleft, NULL) || ', ' || pg_catalog.format_type(o.oprright, NULL) || ')',
                   pg_catalog.pg_get_userbyid(o.oprowner)
            FROM pg_catalog.pg_operator o, s WHERE o.oprnamespace = s.oid
            UNION ALL
            SELECT 'collation', co.collname, pg_catalog.pg_get_userbyid(co.collowner)
            FROM pg_catalog.pg_collation co, s WHERE co.collnamespace = s.oid
            UNION ALL
            SELECT 'text search configuration', ts.cfgname, pg_catalog.pg_get_userbyid(ts.cfgowner)
            FROM pg_catalog.pg_ts_config ts, s WHERE ts.cfgnamespace = s.oid
            UNION ALL
            SELECT 'inheritance',
                   CASE WHEN k.relnamespace = s.oid THEN k.relname::text ELSE kn.nspname || '.' || k.relname END || ' inherits from '
                       || CASE WHEN p.relnamespace = s.oid THEN p.relname::text ELSE pn.nspname || '.' || p.relname END,
                   pg_catalog.pg_get_userbyid(k.relowner)
            FROM pg_catalog.pg_inherits i
                JOIN pg_catalog.pg_class k ON k.oid = i.inhrelid JOIN pg_catalog.pg_namespace kn ON kn.oid = k.relnamespace
                JOIN pg_catalog.pg_class p ON p.oid = i.inhparent JOIN pg_catalog.pg_namespace pn ON pn.oid = p.relnamespace, s
            WHERE (k.relnamespace = s.oid OR p.relnamespace = s.oid) AND k.relkind IN ('r', 'p', 'f')
            UNION ALL
            SELECT 'extension', x.extname, pg_catalog.pg_get_userbyid(x.extowner)
            FROM pg_catalog.pg_extension x, s WHERE x.extnamespace = s.oid
            UNION ALL
            SELECT 'privilege', 'CREATE on the schema for ' || CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE pg_catalog.pg_get_userbyid(a.grantee) END,
                   pg_catalog.pg_get_userbyid(a.grantor)
            FROM s, pg_catalog.pg_namespace n, LATERAL pg_catalog.aclexplode(n.nspacl) a
            WHERE n.oid = s.oid AND a.privilege_type = 'CREATE' AND a.grantee <> s.nspowner
        ) found
        ORDER BY kind, name
        """
}
