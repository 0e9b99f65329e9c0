import LibPQ
import TypedSQL

/// The catalog is the migrator's alone, or it is not used.
///
/// The migrator reads and writes the catalog's tables with its own rights, so anything another role
/// could attach to them would run with those rights: a trigger or rule on `tenants` (trigger
/// functions run as the role that fires them), a view in a table's place whose query calls the
/// viewer's functions, a function of the catalog's schema. A role that may create schemas (as the
/// app roles of schema-per-tenant frameworks often may) could even make the whole schema, tables of
/// the catalog's shape included, before the migrator first installs it. Before it reads the
/// catalog, the migrator asks PostgreSQL who owns what in it.
extension TenantCatalog {
    /// One row when the catalog's schema exists: the list of what makes it not the migrator's alone
    /// as a JSON array (empty when it is). A role is trusted when it is the current user, a
    /// superuser, a role the current user is a member of (a superuser is a member of every role,
    /// so for one this means only itself), or one of ``trustedOwners``.
    ///
    /// - the schema's owner, and every role with `CREATE` on it;
    /// - every relation, function or type of the schema another role owns;
    /// - every trigger (other than PostgreSQL's internal ones) and rule (other than a view's
    ///   `_RETURN`) on a relation of the schema: the migrator makes none;
    /// - a catalog table that is not a plain table;
    /// - a function, operator, type or collation that a constraint, default, index or column of the
    ///   schema uses and that a role other than a superuser and the current user owns
    ///   (``untrustedCodeProblem``): a trusted role's objects, not its code.
    var trustStatement: Statement {
        Statement("""
            WITH me AS (SELECT r.oid FROM pg_catalog.pg_roles AS r WHERE r.rolname = CURRENT_USER),
            trusted AS (
                SELECT me.oid FROM me
                UNION SELECT r.oid FROM pg_catalog.pg_roles AS r WHERE r.rolsuper
                UNION SELECT r.oid FROM pg_catalog.pg_roles AS r, me
                WHERE NOT (SELECT s.rolsuper FROM pg_catalog.pg_roles AS s WHERE s.oid = me.oid) AND pg_catalog.pg_has_role(me.oid, r.oid, 'USAGE')
                \(trustedOwners.isEmpty ? "" : "UNION SELECT r.oid FROM pg_catalog.pg_roles AS r WHERE r.rolname IN (\(literals: trustedOwners))" as SQL)
            ),
            n AS (SELECT n.oid, n.nspowner, n.nspacl FROM pg_catalog.pg_namespace AS n WHERE n.nspname = \(literal: schema))
            SELECT pg_catalog.to_json(pg_catalog.array_remove(ARRAY[
                (SELECT 'the schema is owned by ' || pg_catalog.pg_get_userbyid(n.nspowner) WHERE n.nspowner NOT IN (SELECT oid FROM trusted)),
                (SELECT pg_catalog.string_agg(DISTINCT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE pg_catalog.pg_get_userbyid(a.grantee)::pg_catalog.text END, ', ')
                     || ' may create in the schema'
                 FROM pg_catalog.aclexplode(n.nspacl) AS a WHERE a.privilege_type = 'CREATE' AND a.grantee NOT IN (SELECT oid FROM trusted)),
                (SELECT pg_catalog.string_agg(pg_catalog.format('%s %I is owned by %s',
                            CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'S' THEN 'sequence' WHEN 'i' THEN 'index' ELSE 'relation' END,
                            c.relname, pg_catalog.pg_get_userbyid(c.relowner)), '; ' ORDER BY c.relname)
                 FROM pg_catalog.pg_class AS c WHERE c.relnamespace = n.oid AND c.relowner NOT IN (SELECT oid FROM trusted)),
                (SELECT pg_catalog.string_agg(pg_catalog.format('function %I is owned by %s', p.proname, pg_catalog.pg_get_userbyid(p.proowner)), '; ' ORDER BY p.proname)
                 FROM pg_catalog.pg_proc AS p WHERE p.pronamespace = n.oid AND p.proowner NOT IN (SELECT oid FROM trusted)),
                (SELECT pg_catalog.string_agg(pg_catalog.format('type %I is owned by %s', t.typname, pg_catalog.pg_get_userbyid(t.typowner)), '; ' ORDER BY t.typname)
                 FROM pg_catalog.pg_type AS t WHERE t.typnamespace = n.oid AND t.typrelid = 0 AND t.typowner NOT IN (SELECT oid FROM trusted)),
                (SELECT pg_catalog.string_agg(pg_catalog.format('trigger %I on %I', t.tgname, c.relname), '; ' ORDER BY c.relname, t.tgname)
                 FROM pg_catalog.pg_trigger AS t JOIN pg_catalog.pg_class AS c ON c.oid = t.tgrelid
                 WHERE c.relnamespace = n.oid AND NOT t.tgisinternal),
                (SELECT pg_catalog.string_agg(pg_catalog.format('rule %I on %I', r.rulename, c.relname), '; ' ORDER BY c.relname, r.rulename)
                 FROM pg_catalog.pg_rewrite AS r JOIN pg_catalog.pg_class AS c ON c.oid = r.ev_class
                 WHERE c.relnamespace = n.oid AND r.rulename <> '_RETURN'),
                (SELECT pg_catalog.string_agg(pg_catalog.format('%I is not a table', c.relname), '; ' ORDER BY c.relname)
                 FROM pg_catalog.pg_class AS c
                 WHERE c.relnamespace = n.oid AND c.relname IN ('catalog_info', 'tenants', 'migration_history') AND c.relkind <> 'r'),
                \(Self.untrustedCodeProblem)
            ], NULL))
            FROM n
            """)
    }

    /// Reads ``trustStatement``'s result: whether the schema exists.
    ///
    /// - Throws: ``TenantMigratorError/untrustedCatalog(_:problems:)`` when it exists and is not the
    ///   migrator's alone.
    func checkTrust(_ result: QueryResult) throws -> Bool {
        guard let row = result.first else { return false }
        let problems = try row.decode(PQJSON.self, at: 0).decode([String].self)
        guard problems.isEmpty else { throw TenantMigratorError.untrustedCatalog(schema, problems: problems) }
        return true
    }
}
