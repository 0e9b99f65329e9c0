import EntityModel
import LibPQ
import TypedSQL

extension Array where Element == ForeignObject {
    /// Without the objects `version` lists (`foreignObjects:`, `<kind> <name>` as verify names
    /// them) that a superuser or the migrator owns. One another role owns stays: code a tenant
    /// role controls may run with the migrator's rights (a trigger fires when the migrator writes
    /// rows), so a line in the model does not wave it through.
    func notListed(by version: ModelVersion, on connection: Connection) throws -> [ForeignObject] {
        let listed = Set(version.foreignObjects)
        guard contains(where: { listed.contains($0.kind + " " + $0.name) }) else { return self }
        let query: SQL = "SELECT rolname::text FROM pg_catalog.pg_roles WHERE rolsuper OR rolname = current_user"
        let trusted = Set(try connection.execute(query).map { try $0.decode(String.self, at: 0) })
        return filter { !(listed.contains($0.kind + " " + $0.name) && trusted.contains($0.owner)) }
    }
}
