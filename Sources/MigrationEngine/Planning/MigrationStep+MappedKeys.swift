import EntityModel

/// The mappings over entities keyed otherwise than by an integer `id` that a step refuses when it
/// is planned. Declarative mappings in place, and into another table keyed alike (each row made
/// keeps its source row's key), compile to statements that match rows by their key
/// (`MappingCompiler+Keys.swift`); these do not:
/// - a mapping with a policy: a policy's rows are ids (``SourceRow/id``, ``PolicyContext``);
/// - a `distinct:` mapping: its rows take their keys' ranks as ids, and each key's first row is
///   found by an integer id;
/// - a mapping into another table from or into a keyed entity whose keys differ in their columns'
///   number or types (its rows would need a key of their own);
/// - a relationship of such a mapping to a distinct mapping's rows.
extension MigrationStep {
    static func mappedKeyRefusals(_ model: MappingModel, versions: [ModelVersion]) -> [String] {
        let sourceVersion = versions.first!, destinationVersion = versions.last!
        let old = sourceVersion.relationalSchema(), new = destinationVersion.relationalSchema()
        // (Most families key every entity by an integer id: nothing to work out.)
        guard model.entityMappings.contains(where: { mapping in
            [old.table(forEntity: sourceVersion.rootEntity(of: mapping.source)), new.table(forEntity: destinationVersion.rootEntity(of: mapping.destination))]
                .contains { $0.flatMap(ArchiveRowKey.init) != nil }
        }) else { return [] }
        guard let differ = try? model.inPlaceDiffer(across: model.pair(from: sourceVersion, to: destinationVersion)) else { return [] }
        let compiler = MappingCompiler(differ: differ)
        var reasons: [String] = []
        for mapping in model.entityMappings {
            let sourceTable = differ.old.table(forEntity: sourceVersion.rootEntity(of: mapping.source))
            let destinationTable = compiler.destinationTable(of: mapping.destination)
            let sourceKey = sourceTable.flatMap(ArchiveRowKey.init), destinationKey = destinationTable.flatMap(ArchiveRowKey.init)
            guard sourceKey != nil || destinationKey != nil else { continue }
            let problem = [sourceTable, destinationTable].compactMap { $0.flatMap(keyProblem(of:)) }.first!
            let named = "mapping \(mapping.name)"
            func refuse(_ why: String) {
                reasons.append("\(problem): \(named) \(why); migrate it by a declarative mapping in place or into a table keyed alike, or key it by an integer id")
            }
            if mapping.policy != nil {
                refuse("has a policy, and policies find rows by an integer id (SourceRow.id, PolicyContext)")
            } else if mapping.distinct != nil {
                refuse("is distinct:, and a distinct mapping's rows take their keys' ranks as integer ids")
            } else if !compiler.isInPlace(mapping), !alike(sourceKey, destinationKey) {
                refuse("makes rows of \(mapping.destination) from rows of \(mapping.source), and each keeps its source row's key, so both must be keyed alike: "
                    + "\(described(sourceKey)) and \(described(destinationKey))")
            } else if let distinct = mapping.relationships.flatMap(\.mappings).compactMap(model.entityMapping(named:)).first(where: { $0.distinct != nil }) {
                refuse("links to the rows of distinct mapping \(distinct.name), which it finds by an integer id")
            }
        }
        return reasons
    }

    /// Whether a row keyed by `source` can keep its key in a table keyed by `destination`: as many
    /// columns, of the same types.
    private static func alike(_ source: ArchiveRowKey?, _ destination: ArchiveRowKey?) -> Bool {
        guard let source, let destination else { return false }
        return source.columns.map(\.type) == destination.columns.map(\.type)
    }

    private static func described(_ key: ArchiveRowKey?) -> String {
        key.map { "(\($0.columns.map { "\($0.name) \($0.type)" }.joined(separator: ", ")))" } ?? "(id, an integer)"
    }
}
