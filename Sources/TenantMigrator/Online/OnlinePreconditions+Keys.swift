import EntityModel
import MigrationEngine

extension OnlinePreconditions {
    /// Why a tenant whose tables are keyed otherwise than by integers does not migrate online: the
    /// change capture logs each changed row by its key as integers (`int8[]`), so a row of an
    /// entity keyed by a `uuid` or by text (a natural key) cannot be logged. Names the first such
    /// entity; a composite key of integer columns is logged as it is.
    var keyRefusal: String? {
        for version in [plan.source, plan.destination] {
            for table in version.relationalSchema().tables {
                let key = table.primaryKey.columns.compactMap { table.column(named: $0) }
                guard key.contains(where: { !MigrationStep.rowIDTypes.contains($0.type) }) else { continue }
                let owner: String
                switch table.origin {
                case .entity(let entity): owner = "entity \(entity) (table \(table.name))"
                case .joinTable(let entity, let relationship): owner = "the join table \(table.name) of \(entity).\(relationship)"
                }
                return "\(owner) is keyed by (\(key.map { "\($0.name) \($0.type)" }.joined(separator: ", "))), and the change capture logs rows "
                    + "by keys of integers; migrate it offline"
            }
        }
        return nil
    }
}
