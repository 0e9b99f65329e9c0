import EntityModel

/// What the engine needs of a key, and the steps it refuses for entities keyed otherwise.
///
/// The archive keeps a row by its integer `id` (`row_id`), or, for an entity keyed otherwise (a
/// `uuid` or text `id`, a natural or composite key), by its key as it is (`row_key`,
/// ``ArchiveRowKey``): such an entity migrates by every step that archives its values or rows.
/// Declarative mappings over such entities match rows by their key (`MappingCompiler+Keys.swift`;
/// the refusals of the shapes they do not take are in `MigrationStep+MappedKeys.swift`); a step
/// that removes sub-entities deletes their rows by `id`, so a step that deletes rows of removed
/// sub-entities of such an entity is refused when it is planned, naming it.
extension MigrationStep {
    /// The integer types an `id` the mapping models (and the archive's `row_id`) key rows by may have.
    public static let rowIDTypes: Set<SQLType> = [.smallint, .integer, .bigint]

    /// Why the engine cannot migrate `table` by a step that maps its rows, or nil when it can.
    static func keyProblem(of table: Table) -> String? {
        guard case let .entity(entity) = table.origin, ArchiveRowKey(table) != nil else { return nil }
        let key = table.primaryKey.columns.compactMap { column in table.column(named: column).map { "\($0.name) \($0.type)" } }
        return "entity \(entity) (table \(table.name)) is keyed by (\(key.joined(separator: ", ")))"
    }

    /// The reasons to refuse a step through `versions` that deletes the rows of removed
    /// sub-entities (`archivePlan`'s items with entities) of an entity keyed otherwise than by an
    /// integer `id`, or changes a key. (The archive keeps values and rows of any key; what a
    /// mapping model cannot do over such entities: ``mappedKeyRefusals(_:versions:)``.)
    static func keyRefusals(archivePlan: ArchivePlan, versions: [ModelVersion]) -> [String] {
        let source = versions.first!.relationalSchema()
        var reasons: [String] = []
        var seen: Set<String> = []
        func refuse(_ table: Table?, because what: String, and why: String) {
            guard let table, let problem = keyProblem(of: table), seen.insert(table.name).inserted else { return }
            reasons.append("\(problem): the step \(what), and \(why) (smallint, integer or bigint); "
                + "migrate it by a step that does not, or key it by an integer id")
        }
        for item in archivePlan.items where item.entities != nil {
            refuse(source.table(named: item.table), because: "deletes the rows of its removed sub-entities (\(item.entities!.joined(separator: ", ")))",
                   and: "rows removed with their sub-entity are found by an integer id")
        }
        return reasons + keyChanges(versions: versions)
    }

    /// One reason per entity whose key changes between two adjacent versions of `versions` (a
    /// table of the same name keyed by other columns): the inference changes no primary key, and the
    /// archive keeps a pair's entries by the key its rows had, so such a step is refused before
    /// anything runs rather than left half done (the schema still keyed the old way, `verify`
    /// reporting it, and a later way down matching entries against the other key).
    static func keyChanges(versions: [ModelVersion]) -> [String] {
        zip(versions, versions.dropFirst()).flatMap { older, newer -> [String] in
            let before = older.relationalSchema(), after = newer.relationalSchema()
            return after.tables.compactMap { table -> String? in
                guard case let .entity(entity) = table.origin, let old = before.table(named: table.name), case .entity = old.origin,
                      old.primaryKey.columns != table.primaryKey.columns else { return nil }
                return "entity \(entity) (table \(table.name)) is keyed by (\(old.primaryKey.columns.joined(separator: ", "))) at \(older.name) "
                    + "and by (\(table.primaryKey.columns.joined(separator: ", "))) at \(newer.name): a key that changes between versions is not "
                    + "migrated (the inference changes no primary key, and the archive keeps values by the key their rows had); keep the key, "
                    + "or make a new entity with the new key and move the rows by a mapping model"
            }
        }
    }
}
