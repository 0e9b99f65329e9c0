extension ERDiagram {
    /// The diagram of one version: every entity with its attributes and key-holding to-ones, every
    /// relationship (an inverse pair once), and every inheritance link.
    public init(version: ModelVersion) {
        let mapper = RelationalMapper(graph: version.graph)
        let joinTables = Dictionary(
            version.relationalSchema().tables.compactMap { table -> (PropertyKey, String)? in
                guard case let .joinTable(entity, relationship) = table.origin else { return nil }
                return (PropertyKey(entity: entity, isRelationship: true, name: relationship), table.name)
            },
            uniquingKeysWith: { first, _ in first }
        )
        self.init(
            boxes: version.entities.map { Self.box(for: $0, in: version, mapper: mapper) },
            links: Self.links(in: version, joinTables: joinTables),
            inheritance: version.entities.compactMap { entity in
                entity.parent.map { Inheritance(child: entity.name, parent: $0) }
            }
        )
    }

    private static func box(for entity: Entity, in version: ModelVersion, mapper: RelationalMapper) -> Box {
        var rows: [Row] = []
        // (For a key of properties, the table's notes go on its first key row.)
        var keyNotes: [String] = []
        if entity.parent == nil {
            var notes: [String] = []
            if !SQLName.isConventional(entity.tableName, for: entity.name) { notes.append("table \(entity.tableName)") }
            if entity.isAbstract { notes.append("abstract") }
            if let key = entity.key?.surrogate {
                // (An id of another type, or generated otherwise: as `key:` writes it.)
                notes.append(key.generation == .serial ? key.serialTypeName : key.generation.map { "identity \($0.rawValue)" } ?? "key")
                if let options = key.sequenceOptions {
                    notes.append((["start \(options.start)", "increment \(options.increment)"] + options.optionKeys.map { "\($0.key) \($0.value)" })
                        .joined(separator: ", "))
                }
                rows.append(Row(name: SQLName.primaryKeyColumn, type: PostgreSQLTypeName.written(key.type), keys: ["PK"], notes: notes))
            } else if entity.key == nil {
                rows.append(Row(name: SQLName.primaryKeyColumn, type: AttributeType.int64.rawValue, keys: ["PK"], notes: notes))
            } else {
                keyNotes = notes
            }
            if !version.subentities(of: entity.name).isEmpty {
                rows.append(Row(name: SQLName.discriminatorColumn, type: AttributeType.string.rawValue, notes: ["discriminator"]))
            }
        } else {
            rows.append(Row(
                name: SQLName.discriminatorColumn, type: AttributeType.string.rawValue,
                notes: ["in table \(entity.tableName)"] + (entity.isAbstract ? ["abstract"] : [])
            ))
        }
        let keyProperties = Set(entity.key?.properties ?? [])
        rows += entity.attributes.map { attribute in
            var row = attributeRow(attribute, of: entity.name)
            if keyProperties.contains(attribute.name) { row.keys.insert("PK", at: 0) }
            if attribute.name == entity.key?.properties.first { row.notes = keyNotes + row.notes }
            return row
        }
        for relationship in entity.relationships where mapper.holdsForeignKey(relationship, declaredBy: entity.name) {
            var row = foreignKeyRow(relationship, of: entity.name, in: version)
            if keyProperties.contains(relationship.name) { row.keys.insert("PK", at: 0) }
            if relationship.name == entity.key?.properties.first { row.notes = keyNotes + row.notes }
            rows.append(row)
        }
        return Box(name: entity.name, rows: rows)
    }

    static func attributeRow(_ attribute: Attribute, of entity: String) -> Row {
        var notes: [String] = []
        if attribute.isOptional { notes.append("optional") }
        if attribute.isIndexed && !attribute.isUnique { notes.append("indexed") }
        if let value = attribute.defaultValue { notes.append("default " + value.diagramText) }
        if !SQLName.isConventional(attribute.columnName, for: attribute.name) { notes.append("column \(attribute.columnName)") }
        var row = Row(name: attribute.name, type: attribute.typeName, keys: attribute.isUnique ? ["UK"] : [], notes: notes)
        row.property = PropertyKey(entity: entity, isRelationship: false, name: attribute.name)
        return row
    }

    private static func foreignKeyRow(_ relationship: Relationship, of entity: String, in version: ModelVersion) -> Row {
        let isOneToOne = version.inverse(ofRelationship: relationship.name, in: entity).map { !$0.isToMany } ?? false
        var notes: [String] = []
        if relationship.isOptional { notes.append("optional") }
        notes.append("column \(relationship.foreignKeyColumnName)")
        var row = Row(name: relationship.name, type: relationship.destination, keys: isOneToOne ? ["FK", "UK"] : ["FK"], notes: notes)
        row.property = PropertyKey(entity: entity, isRelationship: true, name: relationship.name)
        return row
    }

    /// Every relationship once: an inverse pair is one line, drawn from its to-many side when it
    /// has one (`Recipe ||--o{ RecipeIngredient`), else from the side that sorts first.
    private static func links(in version: ModelVersion, joinTables: [PropertyKey: String]) -> [Link] {
        var links: [Link] = []
        for entity in version.entities {
            for relationship in entity.relationships {
                let inverse = version.inverse(ofRelationship: relationship.name, in: entity.name)
                if let inverse {
                    let drawnHere = relationship.isToMany != inverse.isToMany
                        ? relationship.isToMany
                        : (entity.name, relationship.name) <= (relationship.destination, inverse.name)
                    guard drawnHere else { continue }
                }
                let key = PropertyKey(entity: entity.name, isRelationship: true, name: relationship.name)
                let inverseKey = inverse.map { PropertyKey(entity: relationship.destination, isRelationship: true, name: $0.name) }
                links.append(Link(
                    left: End(
                        entity: entity.name,
                        multiplicity: inverse.map(multiplicity) ?? .zeroOrMore,
                        label: inverse.map(label),
                        property: inverseKey
                    ),
                    right: End(entity: relationship.destination, multiplicity: multiplicity(of: relationship),
                               label: label(of: relationship), property: key),
                    joinTable: joinTables[key] ?? inverseKey.flatMap { joinTables[$0] }
                ))
            }
        }
        return links
    }

    static func multiplicity(of relationship: Relationship) -> Multiplicity {
        let atLeastOne = !relationship.isOptional || (relationship.minCount ?? 0) > 0
        if relationship.isToMany { return atLeastOne ? .oneOrMore : .zeroOrMore }
        return atLeastOne ? .exactlyOne : .zeroOrOne
    }

    /// `ingredients (cascade)`, `tags (nullify, 1..5)`.
    static func label(of relationship: Relationship) -> String {
        var details = [relationship.deleteRule.rawValue]
        if relationship.minCount != nil || relationship.maxCount != nil {
            details.append("\(relationship.minCount ?? 0)..\(relationship.maxCount.map(String.init) ?? "*")")
        }
        return "\(relationship.name) (\(details.joined(separator: ", ")))"
    }
}

extension DefaultValue {
    /// The default as a diagram shows it: `'Other'`, `42`, `true`, `'2024-01-01T00:00:00Z'`.
    var diagramText: String {
        switch self {
        case .string(let value): "'" + value.replacingOccurrences(of: "\n", with: "\\n") + "'"
        case .integer(let value): String(value)
        case .decimal(let value): value
        case .floatingPoint(let value): "\(value)"
        case .bool(let value): value ? "true" : "false"
        case .date(let value), .uuid(let value), .json(let value): "'" + value + "'"
        case .binary(let bytes): "0x" + bytes.hexString
        case .expression(let value): value
        }
    }
}

extension SQLName {
    /// Whether `sqlName` is what the model's default naming gives for `name`: its snake_case
    /// (`recipe_ingredient` for `RecipeIngredient`). Diagrams note the SQL name only where it is not.
    static func isConventional(_ sqlName: String, for name: String) -> Bool {
        sqlName == name.snakeCased
    }
}
