import EntityModel

extension MigrationPlan {
    /// Why the plan does not run online, for its keys, or nil: the change capture logs each changed
    /// row by its key's text and catch-up finds the row again by that text cast back to the key's
    /// types (``CapturedKey``), which holds for keys of integers, text, `varchar(n)`, `char(n)`,
    /// `uuid`, `citext`, `numeric`, `boolean`, `date`, `time` and timestamps, and composites of
    /// them. A tenant with a table, at either end of the plan, keyed by a column of another type
    /// (an enum of the model, floating point, `bytea`, `jsonb`, …) is refused before the run
    /// touches anything, and `plan` says so, naming the first such entity or join table and its
    /// key. (What else a key rules out — mapping models with a policy or `distinct:` over an entity
    /// not keyed by an integer id — is refused for every run when the step is planned:
    /// docs/Archive.md, "Rows keyed by anything".)
    public var onlineKeyRefusal: String? {
        for version in [source, destination] {
            for table in version.relationalSchema().tables {
                let key = table.primaryKey.columns.compactMap { table.column(named: $0) }
                guard let refused = key.first(where: { !CapturedKey.isCaptured($0.type) }) else { continue }
                let owner: String
                switch table.origin {
                case .entity(let entity): owner = "entity \(entity) (table \(table.name))"
                case .joinTable(let entity, let relationship): owner = "the join table \(table.name) of \(entity).\(relationship)"
                }
                return "\(owner) is keyed by (\(key.map { "\($0.name) \($0.type)" }.joined(separator: ", "))), and the change capture cannot "
                    + "log a key of \(refused.type) (\(refused.name)) as text that casts back to the same value; migrate it offline"
            }
        }
        return nil
    }
}
