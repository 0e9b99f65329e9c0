import EntityModel
import LibPQ
import TypedSQL

extension OnlinePreconditions {
    /// Why the tenant's own enum types keep an online run from replacing them, or nil: the cutover
    /// moves the tenant's types out with the old tables and the shadow's in (the shadow's tables
    /// use those), so only the model's tables may use them. Anything else that does (a function's
    /// argument, a domain, a table the model does not know, in any schema) would keep the old type,
    /// and go with it when the retired tables are dropped; it is named, and the tenant migrates offline.
    func enumRefusal(on connection: Connection) throws -> String? {
        let names = plan.source.relationalSchema().enumTypes.map(\.name)
        guard !names.isEmpty else { return nil }
        let types: SQL = """
            SELECT t.oid, t.typname::pg_catalog.text AS name FROM pg_catalog.pg_type AS t
            WHERE t.typnamespace = \(bind: schemas.tenant)::pg_catalog.regnamespace AND t.typname IN (\(literals: names))
            UNION ALL
            SELECT t.typarray, t.typname::pg_catalog.text FROM pg_catalog.pg_type AS t
            WHERE t.typnamespace = \(bind: schemas.tenant)::pg_catalog.regnamespace AND t.typname IN (\(literals: names))
            """
        guard let (user, type) = try firstOtherUser(of: types, kind: "pg_catalog.pg_type", on: connection) else { return nil }
        return "\(user) uses the enum type \(type), which the cutover replaces with the new version's (it would keep the old one); "
            + "drop it or change it first, or migrate the tenant offline"
    }

    /// The first object other than the model's tables (their columns, defaults, constraints and
    /// indexes) that depends on one of `objects` (`oid`, `name`) of the catalog `kind`, as
    /// PostgreSQL describes it, with the object's name; nil when there is none.
    func firstOtherUser(of objects: SQL, kind: String, on connection: Connection) throws -> (String, String)? {
        let tables = plan.source.relationalSchema().tables.map(\.name)
        guard let row = try connection.execute("""
            WITH objects AS (\(objects)),
            users AS (
                SELECT o.name, d.classid, d.objid, d.objsubid,
                       CASE d.classid
                           WHEN 'pg_catalog.pg_class'::pg_catalog.regclass
                               THEN coalesce((SELECT i.indrelid FROM pg_catalog.pg_index AS i WHERE i.indexrelid = d.objid), d.objid)
                           WHEN 'pg_catalog.pg_attrdef'::pg_catalog.regclass THEN (SELECT a.adrelid FROM pg_catalog.pg_attrdef AS a WHERE a.oid = d.objid)
                           WHEN 'pg_catalog.pg_constraint'::pg_catalog.regclass THEN (SELECT k.conrelid FROM pg_catalog.pg_constraint AS k WHERE k.oid = d.objid)
                       END AS relation
                FROM objects AS o JOIN pg_catalog.pg_depend AS d
                  ON d.refclassid = \(literal: kind)::pg_catalog.regclass AND d.refobjid = o.oid AND d.deptype = 'n')
            SELECT pg_catalog.pg_describe_object(u.classid, u.objid, u.objsubid), u.name FROM users AS u
            WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class AS c WHERE c.oid = u.relation
                              AND c.relnamespace = \(bind: schemas.tenant)::pg_catalog.regnamespace AND c.relname IN (\(literals: tables)))
            ORDER BY 1, 2 LIMIT 1
            """).first else { return nil }
        return (try row.decode(String.self, at: 0), try row.decode(String.self, at: 1))
    }
}
