import EntityModel

extension MigrationPlan {
    /// Why the plan does not run online, for its keys, or nil: the change capture logs each changed
    /// row by its key as integers (`int8[]`), so a tenant with a table keyed by a `uuid` or by text
    /// (a natural key), at either end of the plan, cannot be caught up. Names the first such entity
    /// or join table; a composite key of integer columns is logged as it is. The online run refuses
    /// such a tenant before it touches anything, and `plan` says so (mapped steps over such entities
    /// included: their catch-up would map changed rows again by key, which the capture cannot log).
    public var onlineKeyRefusal: String? {
        for version in [source, destination] {
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
