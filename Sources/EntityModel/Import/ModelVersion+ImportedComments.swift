extension ModelVersion {
    /// This version with the comments of `snapshot`'s tables and columns on the entities and
    /// attributes stored there (a table's comment goes to its root entity).
    func takingComments(from snapshot: SchemaSnapshot, file: String) throws(ModelLoadError) -> ModelVersion {
        var entities = self.entities
        var found = false
        for table in relationalSchema().tables {
            guard let live = snapshot.table(named: table.name) else { continue }
            if case let .entity(root) = table.origin, let comment = live.comment, let index = entities.firstIndex(where: { $0.name == root }) {
                entities[index].comment = comment
                found = true
            }
            for column in table.columns {
                guard case let .attribute(entity, attribute) = column.origin, let comment = live.column(named: column.name)?.comment,
                      let index = entities.firstIndex(where: { $0.name == entity }),
                      let attributeIndex = entities[index].attributes.firstIndex(where: { $0.name == attribute }) else { continue }
                entities[index].attributes[attributeIndex].comment = comment
                found = true
            }
        }
        return found ? try ModelVersion(name: name, entities: entities, enums: enums, file: file) : self
    }
}
