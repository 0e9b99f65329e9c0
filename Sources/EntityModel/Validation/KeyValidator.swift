/// Checks entities' `key:` and the version's `sequences:` (docs/ModelFormat.md, "Keys and sequences").
struct KeyValidator {
    let graph: EntityGraph
    let file: String
    private(set) var diagnostics: [ModelDiagnostic] = []

    init(graph: EntityGraph, file: String) {
        self.graph = graph
        self.file = file
    }

    private mutating func report(_ location: SourceLocation?, _ message: String) {
        diagnostics.append(ModelDiagnostic(at: location, orIn: file, message))
    }

    /// Every entity's key, and every reference to a key of several columns.
    mutating func checkKeys() {
        let mapper = RelationalMapper(graph: graph)
        for entity in graph.entities {
            if entity.key != nil, graph.parentOf[entity.name] != nil || entity.parent != nil {
                report(entity.location, "entity \(entity.name) has a key, but only a root entity does: a sub-entity has its root's key.")
            }
            if case .properties(let names)? = entity.key { checkProperties(names, of: entity, mapper: mapper) }
            if let key = entity.key?.surrogate, let options = key.sequenceOptions { checkSequenceOptions(options, of: key, entity: entity, mapper: mapper) }
            for relationship in entity.relationships {
                let referencesKey = mapper.holdsForeignKey(relationship, declaredBy: entity.name) || mapper.ownsJoinTable(relationship, declaredBy: entity.name)
                guard referencesKey, graph.byName[relationship.destination] != nil else { continue }
                for target in Set([relationship.destination] + (relationship.isToMany ? [entity.name] : [])) {
                    let key = mapper.referencedKey(ofEntity: target)
                    if key.count > 1 {
                        report(relationship.location, "relationship \(entity.name).\(relationship.name) refers to \(target), whose key has \(key.count) "
                            + "columns (\(key.map(\.column).joined(separator: ", "))); a relationship refers to a key of one column. "
                            + "Give \(graph.root(of: target)) a key of one column, or keep the reference as attributes.")
                    }
                }
            }
        }
    }

    private mutating func checkProperties(_ names: [String], of entity: Entity, mapper: RelationalMapper) {
        let what = "the key of entity \(entity.name)"
        var seen: Set<String> = []
        for name in names {
            if !seen.insert(name).inserted { report(entity.location, "\(what) names \(name) twice.") }
            if let attribute = entity.attribute(named: name) {
                if attribute.isOptional { report(attribute.location, "attribute \(entity.name).\(name) is in \(what), so it cannot be optional.") }
            } else if let relationship = entity.relationship(named: name), mapper.holdsForeignKey(relationship, declaredBy: entity.name) {
                if relationship.isOptional { report(relationship.location, "relationship \(entity.name).\(name) is in \(what), so it cannot be optional (write optional: false).") }
            } else {
                report(entity.location, "\(what) names \(name), which is not an attribute or a to-one of \(entity.name) holding a key.")
            }
        }
    }

    /// The options of a key's own sequence: bounds as for any sequence, and a `serial`'s
    /// sequence named as PostgreSQL names it, `<table>_id_seq`, within 63 bytes (a longer name,
    /// which PostgreSQL shortens, could not be found to set them).
    private mutating func checkSequenceOptions(_ options: KeySequenceOptions, of key: SurrogateKey, entity: Entity, mapper: RelationalMapper) {
        checkBounds(of: options.sequence(named: "", type: key.type, location: entity.location), what: "the key of entity \(entity.name)")
        let sequence = SQLName.serialSequence(ofTable: mapper.tableName(ofRoot: entity.name))
        if key.generation == .serial, sequence.utf8.count > SQLName.maximumLength {
            report(entity.location, "the key of entity \(entity.name) is serial, and its sequence \(sequence) would be longer than \(SQLName.maximumLength) bytes, "
                + "so PostgreSQL shortens its name and its options cannot be set; use an identity, or a shorter table name.")
        }
    }

    /// A sequence's options as PostgreSQL takes them: bounds within its type, `minValue` below
    /// `maxValue`, the start between them, and a cache of at least 1.
    private mutating func checkBounds(of sequence: ModelSequence, what: String? = nil) {
        let what = what ?? "sequence \(sequence.name)"
        for (key, bound) in [("minValue", sequence.minValue), ("maxValue", sequence.maxValue)] {
            guard let bound, !sequence.typeRange.contains(bound) else { continue }
            report(sequence.location, "\(key) \(bound) of \(what) is out of the range of \(sequence.type.rawValue).")
        }
        if sequence.lowest >= sequence.highest {
            report(sequence.location, "minValue \(sequence.lowest) of \(what) must be below its maxValue \(sequence.highest).")
        } else if !(sequence.lowest...sequence.highest).contains(sequence.start) {
            report(sequence.location, "start \(sequence.start) of \(what) is not between its minValue \(sequence.lowest) and maxValue \(sequence.highest).")
        }
        if sequence.cache < 1 { report(sequence.location, "cache \(sequence.cache) of \(what) must be at least 1.") }
    }

    /// The sequences: valid, distinct names apart from the tables', and every `nextval('…')`
    /// default naming a sequence the version declares or a `serial` key owns.
    mutating func checkSequences(_ sequences: [ModelSequence]) {
        let mapper = RelationalMapper(graph: graph)
        let tables = Set(graph.roots.map { mapper.tableName(ofRoot: $0.name) })
        var names: Set<String> = []
        for sequence in sequences {
            let what = "sequence \(sequence.name)"
            if SQLName.isToolName(sequence.name) || !SQLName.isSQLName(sequence.name) || sequence.name.utf8.count > SQLName.maximumLength {
                report(sequence.location, "\(what) is not a valid name: a name starts with a letter or \"_\" (not \"\(SQLName.toolPrefix)\"), "
                    + "has only letters, digits and \"_\", and at most 63 bytes.")
            }
            if !names.insert(sequence.name).inserted { report(sequence.location, "\(what) is declared twice.") }
            if tables.contains(sequence.name) { report(sequence.location, "\(what) has the name of a table; a sequence and a table share one namespace.") }
            checkBounds(of: sequence)
        }
        let owned = Set(graph.roots.filter { $0.key?.surrogate?.generation == .serial }.map { mapper.tableName(ofRoot: $0.name) + "_id_seq" })
        func check(_ value: DefaultValue?, of what: String, at location: SourceLocation?) {
            guard let sequence = value?.sequenceName, !names.contains(sequence), !owned.contains(sequence) else { return }
            report(location, "the default of \(what) draws from sequence \(sequence), which the version does not declare; add it under sequences:.")
        }
        for entity in graph.entities {
            check(entity.key?.surrogate?.defaultExpression.map(DefaultValue.expression), of: "the key of entity \(entity.name)", at: entity.location)
            for attribute in entity.attributes { check(attribute.defaultValue, of: "attribute \(entity.name).\(attribute.name)", at: attribute.location) }
        }
    }
}

extension ModelValidator {
    /// The mistakes in `sequences` and in the defaults that draw from sequences.
    static func validate(sequences: [ModelSequence], entities: [Entity], file: String) -> [ModelDiagnostic] {
        var validator = KeyValidator(graph: EntityGraph(entities), file: file)
        validator.checkSequences(sequences)
        return ModelDiagnostic.sortedForDisplay(validator.diagnostics)
    }
}
