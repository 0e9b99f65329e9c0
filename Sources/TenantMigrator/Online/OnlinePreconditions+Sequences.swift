import EntityModel
import LibPQ
import TypedSQL

extension OnlinePreconditions {
    /// Why the tenant's own sequences (`sequences:`) keep an online run from replacing them, or
    /// nil: the cutover moves them out with the old tables and the shadow's in, at their position,
    /// so only the model's tables' defaults may draw from them. Anything else that does (a default
    /// of a table the model does not know, in any schema) would go on drawing from the old one,
    /// and take ids the tenant's new sequence gives again; it is named, and the tenant migrates offline.
    func sequenceRefusal(on connection: Connection) throws -> String? {
        let found = try firstOtherUser(ofNamed: plan.source.relationalSchema().sequences.map(\.name), kind: "pg_catalog.pg_class", on: connection) { names in
            """
            SELECT c.oid, c.relname::pg_catalog.text AS name FROM pg_catalog.pg_class AS c
            WHERE c.relnamespace = \(bind: schemas.tenant)::pg_catalog.regnamespace AND c.relkind = 'S' AND c.relname IN (\(literals: names))
            """
        }
        guard let (user, sequence) = found else { return nil }
        return "\(user) draws from the sequence \(sequence), which the cutover replaces with the new version's (it would keep drawing "
            + "from the old one, and take ids the new one gives again); drop it or change it first, or migrate the tenant offline"
    }
}
