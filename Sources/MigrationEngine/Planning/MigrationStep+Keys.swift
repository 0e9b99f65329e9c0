import EntityModel

/// What the engine needs of a key, and the steps it refuses for entities keyed otherwise.
///
/// The archive keeps a value by its row's integer `id` (`row_id bigint`), and mapping models copy
/// rows by `id` (with an offset, for `distinct:` ranks and merges). An entity keyed by an `id` of
/// another type (`uuid`), or by properties (a natural or composite key), migrates by every step
/// that archives none of its values and maps none of its rows (checks, unique groups, indexes,
/// defaults, foreign-key options); a step that would is refused when it is planned, naming the entity.
extension MigrationStep {
    /// The integer types an `id` the archive and the mapping models key rows by may have.
    public static let rowIDTypes: Set<SQLType> = [.smallint, .integer, .bigint]

    /// Why the engine cannot migrate `table` by a step that archives or maps its rows, or nil when it can.
    static func keyProblem(of table: Table) -> String? {
        guard case let .entity(entity) = table.origin else { return nil }
        if table.primaryKey.columns == [SQLName.primaryKeyColumn], let id = table.column(named: SQLName.primaryKeyColumn), rowIDTypes.contains(id.type) {
            return nil
        }
        let key = table.primaryKey.columns.compactMap { column in table.column(named: column).map { "\($0.name) \($0.type)" } }
        return "entity \(entity) (table \(table.name)) is keyed by (\(key.joined(separator: ", ")))"
    }

    /// The reasons to refuse a step through `versions` that archives `archivePlan`'s values and
    /// rows, or maps rows with `mapping`: one per entity keyed otherwise than by an integer `id`.
    /// (What a step gives back comes from entries only such steps write, so it needs no check.)
    static func keyRefusals(archivePlan: ArchivePlan, mapping: MappingModel?, versions: [ModelVersion]) -> [String] {
        let source = versions.first!.relationalSchema(), destination = versions.last!.relationalSchema()
        var reasons: [String] = []
        var seen: Set<String> = []
        func refuse(_ table: Table?, because what: String) {
            guard let table, let problem = keyProblem(of: table), seen.insert(table.name).inserted else { return }
            reasons.append("\(problem): the step \(what), and the archive and the mapping models keep rows by an integer id "
                + "(smallint, integer or bigint); migrate it by a step that archives none of its values, or key it by an integer id")
        }
        for item in archivePlan.items { refuse(source.table(named: item.table), because: "archives values of it (\(item.column ?? "whole rows"))") }
        if let mapping {
            for entityMapping in mapping.entityMappings {
                refuse(source.table(forEntity: versions.first!.rootEntity(of: entityMapping.source)), because: "maps its rows (\(mapping.file))")
                refuse(destination.table(forEntity: versions.last!.rootEntity(of: entityMapping.destination)), because: "maps rows into it (\(mapping.file))")
            }
        }
        return reasons
    }
}
