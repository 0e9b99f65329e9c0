extension ModelVersion {
    /// This version with the comments of `snapshot`'s tables and columns on the entities and
    /// attributes stored there (a table's comment goes to its root entity); itself when the
    /// snapshot has no comments.
    func takingComments(from snapshot: SchemaSnapshot, file: String) throws(ModelLoadError) -> ModelVersion {
        var tableComments: [String: String] = [:], columnComments: [String: [String: String]] = [:]
        for table in snapshot.tables {
            if let comment = table.comment { tableComments[table.name] = comment }
            for column in table.columns where column.comment != nil { columnComments[table.name, default: [:]][column.name] = column.comment }
        }
        guard !tableComments.isEmpty || !columnComments.isEmpty else { return self }
        var entities = self.entities
        let positions = Dictionary(entities.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        for table in relationalSchema().tables {
            if case let .entity(root) = table.origin, let comment = tableComments[table.name], let index = positions[root] {
                entities[index].comment = comment
            }
            for column in table.columns {
                guard case let .attribute(entity, attribute) = column.origin, let comment = columnComments[table.name]?[column.name],
                      let index = positions[entity],
                      let attributeIndex = entities[index].attributes.firstIndex(where: { $0.name == attribute }) else { continue }
                entities[index].attributes[attributeIndex].comment = comment
            }
        }
        return try ModelVersion(name: name, entities: entities, sequences: sequences, enums: enums, foreignObjects: foreignObjects, file: file)
    }
}
