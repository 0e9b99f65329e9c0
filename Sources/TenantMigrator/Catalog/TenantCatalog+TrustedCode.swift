import TypedSQL

extension TenantCatalog {
    /// The element of ``trustStatement``'s list that names what the catalog's tables use (their
    /// constraints, defaults, indexes and column types) of a function, operator, type or collation
    /// owned by a role other than a superuser and the migrator (`current_user`), or NULL.
    ///
    /// The migrator's own catalog uses only PostgreSQL's built-in objects, which `pg_depend` never
    /// lists. A role the migrator is a member of is trusted to own the catalog's objects (``trustStatement``),
    /// but its code is not: a check it put on `tenants` (in a catalog it made before the migrator
    /// first installed one) would run with every write of the catalog, with the migrator's rights,
    /// which reach every tenant the migrator owns. `n` is the catalog's schema.
    static var untrustedCodeProblem: SQL {
        """
        (SELECT pg_catalog.string_agg(DISTINCT pg_catalog.format('%s uses %s, owned by %s', o.place,
                    pg_catalog.pg_describe_object(d.refclassid, d.refobjid, 0), pg_catalog.pg_get_userbyid(coalesce(p.proowner, op.oprowner, t.typowner, l.collowner))), '; ')
         FROM (
             SELECT 'pg_catalog.pg_constraint'::pg_catalog.regclass AS classid, k.oid AS objid, pg_catalog.format('constraint %I of %I', k.conname, c.relname) AS place
             FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_constraint AS k ON k.conrelid = c.oid WHERE c.relnamespace = n.oid
             UNION ALL
             SELECT 'pg_catalog.pg_attrdef'::pg_catalog.regclass, f.oid, pg_catalog.format('the default of %I.%I', c.relname, a.attname)
             FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_attrdef AS f ON f.adrelid = c.oid
                 JOIN pg_catalog.pg_attribute AS a ON a.attrelid = c.oid AND a.attnum = f.adnum
             WHERE c.relnamespace = n.oid
             UNION ALL
             SELECT 'pg_catalog.pg_class'::pg_catalog.regclass, c.oid,
                 pg_catalog.format(CASE WHEN c.relkind IN ('i', 'I') THEN 'index %I' ELSE 'a column of %I' END, c.relname)
             FROM pg_catalog.pg_class AS c WHERE c.relnamespace = n.oid
         ) AS o
         JOIN pg_catalog.pg_depend AS d ON d.classid = o.classid AND d.objid = o.objid
         LEFT JOIN pg_catalog.pg_proc AS p ON d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND p.oid = d.refobjid
         LEFT JOIN pg_catalog.pg_operator AS op ON d.refclassid = 'pg_catalog.pg_operator'::pg_catalog.regclass AND op.oid = d.refobjid
         LEFT JOIN pg_catalog.pg_type AS t ON d.refclassid = 'pg_catalog.pg_type'::pg_catalog.regclass AND t.oid = d.refobjid
         LEFT JOIN pg_catalog.pg_collation AS l ON d.refclassid = 'pg_catalog.pg_collation'::pg_catalog.regclass AND l.oid = d.refobjid
         WHERE coalesce(p.proowner, op.oprowner, t.typowner, l.collowner) NOT IN
             (SELECT r.oid FROM pg_catalog.pg_roles AS r WHERE r.rolsuper OR r.rolname = CURRENT_USER))
        """
    }
}
