import LibPQ
import TypedSQL

extension OnlinePreconditions {
    /// The first object other than the model's tables (their columns, defaults, constraints and
    /// indexes) that depends on one of the tenant's own objects of the catalog `kind` named `names`
    /// (`objects` of them: the query of their `oid` and `name`), as PostgreSQL describes it, with
    /// the object's name; nil when there is none, or no names to look for.
    func firstOtherUser(ofNamed names: [String], kind: String, on connection: Connection, objects: ([String]) -> SQL) throws -> (String, String)? {
        guard !names.isEmpty else { return nil }
        let tables = plan.source.relationalSchema().tables.map(\.name)
        guard let row = try connection.execute("""
            WITH objects AS (\(objects(names))),
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
