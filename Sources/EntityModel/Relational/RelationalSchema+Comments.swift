extension RelationalSchema {
    /// Gives each entity table its root entity's comment and each attribute column its attribute's.
    /// Linear in the number of columns; nothing to do when no entity or attribute has a comment.
    mutating func takeComments(from entities: [Entity]) {
        var tableComments: [String: String] = [:]
        var columnComments: [String: [String: String]] = [:]
        for entity in entities {
            if let comment = entity.comment { tableComments[entity.name] = comment }
            for attribute in entity.attributes {
                if let comment = attribute.comment { columnComments[entity.name, default: [:]][attribute.name] = comment }
            }
        }
        guard !tableComments.isEmpty || !columnComments.isEmpty else { return }
        for index in tables.indices {
            if case let .entity(root) = tables[index].origin { tables[index].comment = tableComments[root] }
            for column in tables[index].columns.indices {
                guard case let .attribute(entity, attribute) = tables[index].columns[column].origin else { continue }
                tables[index].columns[column].comment = columnComments[entity]?[attribute]
            }
        }
    }
}
