extension RelationalSchema {
    /// Gives each entity table its root entity's comment and each attribute column its attribute's.
    mutating func takeComments(from entities: [Entity]) {
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for index in tables.indices {
            if case let .entity(root) = tables[index].origin { tables[index].comment = byName[root]?.comment }
            for column in tables[index].columns.indices {
                guard case let .attribute(entity, attribute) = tables[index].columns[column].origin else { continue }
                tables[index].columns[column].comment = byName[entity]?.attribute(named: attribute)?.comment
            }
        }
    }
}
