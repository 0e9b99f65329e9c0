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
        let found = try firstOtherUser(ofNamed: plan.source.relationalSchema().enumTypes.map(\.name), kind: "pg_catalog.pg_type", on: connection) { names in
            """
            SELECT t.oid, t.typname::pg_catalog.text AS name FROM pg_catalog.pg_type AS t
            WHERE t.typnamespace = \(bind: schemas.tenant)::pg_catalog.regnamespace AND t.typname IN (\(literals: names))
            UNION ALL
            SELECT t.typarray, t.typname::pg_catalog.text FROM pg_catalog.pg_type AS t
            WHERE t.typnamespace = \(bind: schemas.tenant)::pg_catalog.regnamespace AND t.typname IN (\(literals: names))
            """
        }
        guard let (user, type) = found else { return nil }
        return "\(user) uses the enum type \(type), which the cutover replaces with the new version's (it would keep the old one); "
            + "drop it or change it first, or migrate the tenant offline"
    }
}
