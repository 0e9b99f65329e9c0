import TypedSQL
import Yams

/// Turns the text of a version file into entities, reporting every mistake of form (wrong kinds,
/// unknown keys, unknown types, defaults that do not fit) with its line. Mistakes of meaning are left
/// to ``ModelValidator``.
struct VersionFileDecoder {
    static let versionKeys = ["entities", "sequences", "enums", "foreignObjects"]
    static let entityKeys = ["attributes", "relationships", "table", "renamingIdentifier", "parent", "abstract", "checks", "uniques", "indexes", "key", "comment"]
    static let attributeKeys = [
        "type", "optional", "default", "defaultExpression", "unique", "indexed", "renamingIdentifier", "column", "allowsNarrowing", "check", "comment",
    ]
    static let relationshipKeys = [
        "destination", "toMany", "inverse", "deleteRule", "optional", "minCount", "maxCount", "renamingIdentifier", "column",
        "onUpdate", "deferred", "indexed", "joinOnDelete", "joinTable", "joinColumns", "joinKey", "joinOnUpdate",
    ]

    /// The types a version file may name, for messages.
    static let typesSpelledOut = AttributeType.spelledOut
        + ", or a PostgreSQL type such as varchar(255), numeric(12,2), timestamp(3), pg.date, text[] (see docs/ModelFormat.md)"

    var reader: YAMLReader
    /// The sequences the file declares (`sequences:`), once ``decode(yaml:)`` has run.
    var sequences: [ModelSequence] = []
    /// The enum types declared in `enums:`, once ``decode(yaml:)`` ran.
    private(set) var enums: [EnumType] = []
    /// The objects `foreignObjects:` lists (`view big_orders`), once ``decode(yaml:)`` ran.
    private(set) var foreignObjects: [String] = []

    init(file: String) {
        reader = YAMLReader(file: file)
    }

    /// The mistakes found.
    var diagnostics: [ModelDiagnostic] { reader.diagnostics }

    /// The entities declared in `yaml`, as far as they could be read.
    mutating func decode(yaml: String) -> [Entity] {
        let root: Node?
        do {
            root = try ModelYAML.compose(yaml)
        } catch {
            reader.diagnostics.append(ModelDiagnostic(yamlError: error, in: reader.file))
            return []
        }
        guard let root else {
            reader.diagnostics.append(ModelDiagnostic(file: reader.file, line: 1, message:
                "the file is empty; a version file is a mapping with the key entities."))
            return []
        }
        guard let entries = reader.entries(of: root, what: "a version file") else { return [] }
        reader.checkKeys(entries, allowed: Self.versionKeys, in: "a version file")
        if let enumsNode = reader.value("enums", in: entries) { enums = Self.decodeEnums(enumsNode, reader: &reader) }
        guard let entitiesNode = reader.value("entities", in: entries) else {
            reader.report(root, "a version file needs the key entities.")
            return []
        }
        if let sequencesNode = reader.value("sequences", in: entries) { sequences = decodeSequences(sequencesNode) }
        if let foreignNode = reader.value("foreignObjects", in: entries) { foreignObjects = decodeForeignObjects(foreignNode) }
        guard let declared = reader.entries(of: entitiesNode, what: "entities", allowsNull: true) else { return [] }
        return declared.compactMap { decodeEntity($0) }
    }

    private mutating func decodeEntity(_ entry: YAMLReader.Entry) -> Entity? {
        let name = entry.key
        let what = "entity \(name)"
        guard let entries = reader.entries(of: entry.value, what: what, allowsNull: true) else { return nil }
        reader.checkKeys(entries, allowed: Self.entityKeys, in: what)
        var entity = Entity(name: name, location: reader.location(of: entry.keyNode))
        for item in entries {
            switch item.key {
            case "table": entity.tableOverride = reader.string(item.value, what: "table of \(what)")
            case "comment": entity.comment = reader.string(item.value, what: "comment of \(what)")
            case "renamingIdentifier": entity.renamingIdentifier = reader.string(item.value, what: "renamingIdentifier of \(what)")
            case "parent": entity.parent = reader.string(item.value, what: "parent of \(what)")
            case "abstract": entity.isAbstract = reader.bool(item.value, what: "abstract of \(what)") ?? false
            case "attributes":
                let attributes = reader.entries(of: item.value, what: "attributes of \(what)", allowsNull: true) ?? []
                entity.attributes = attributes.compactMap { decodeAttribute($0, of: name) }
            case "checks":
                entity.checks = sequence(item.value, what: "checks of \(what)").compactMap { sqlCondition($0, what: "a check of \(what)") }
            case "uniques":
                entity.uniques = sequence(item.value, what: "uniques of \(what)").compactMap { group in
                    let names = sequence(group, what: "a unique group of \(what)").compactMap { reader.string($0, what: "a property of a unique group of \(what)") }
                    if names.count < 2 { reader.report(group, "a unique group of \(what) names two or more properties; for one, write unique: true on it.") }
                    return names.count < 2 ? nil : names
                }
            case "key": entity.key = decodeKey(item.value, of: what)
            case "indexes":
                entity.indexes = sequence(item.value, what: "indexes of \(what)").compactMap { decodeIndex($0, of: what) }
            case "relationships":
                let relationships = reader.entries(of: item.value, what: "relationships of \(what)", allowsNull: true) ?? []
                entity.relationships = relationships.compactMap { decodeRelationship($0, of: name) }
            default: break
            }
        }
        return entity
    }

    private mutating func decodeAttribute(_ entry: YAMLReader.Entry, of entity: String) -> Attribute? {
        let required = (key: "type", withWhat: "one of: \(Self.typesSpelledOut)")
        guard let (what, entries, typeNode) = propertyEntries(entry, "attribute", of: entity, Self.attributeKeys, required) else { return nil }
        // An attribute whose type is unknown is kept (as a string) so its name is still checked.
        var attribute = Attribute(name: entry.key, type: .string, location: reader.location(of: entry.keyNode))
        var typeIsKnown = false
        if let typeName = reader.string(typeNode, what: "type of \(what)") {
            if let type = AttributeType(rawValue: typeName) {
                attribute.type = type
                typeIsKnown = true
            } else if let enumType = Self.enumType(typeName) {
                attribute.columnType = enumType
                typeIsKnown = true
            } else if let sqlType = PostgreSQLTypeName.parse(typeName) {
                attribute.type = PostgreSQLTypeName.kind(of: sqlType)
                attribute.columnType = attribute.type.sqlType == sqlType ? nil : sqlType
                typeIsKnown = true
            } else {
                reader.report(typeNode, "\(what) has unknown type \"\(typeName)\"; the types are: \(Self.typesSpelledOut).")
            }
        }
        for item in entries {
            switch item.key {
            case "optional": attribute.isOptional = reader.bool(item.value, what: "optional of \(what)") ?? false
            case "unique": attribute.isUnique = reader.bool(item.value, what: "unique of \(what)") ?? false
            case "indexed": attribute.isIndexed = reader.bool(item.value, what: "indexed of \(what)") ?? false
            case "allowsNarrowing": attribute.allowsNarrowing = reader.bool(item.value, what: "allowsNarrowing of \(what)") ?? false
            case "renamingIdentifier": attribute.renamingIdentifier = reader.string(item.value, what: "renamingIdentifier of \(what)")
            case "column": attribute.columnOverride = reader.string(item.value, what: "column of \(what)")
            case "check": attribute.check = sqlCondition(item.value, what: "check of \(what)")
            case "comment": attribute.comment = reader.string(item.value, what: "comment of \(what)")
            case "default" where typeIsKnown: attribute.defaultValue = decodeDefault(item.value, type: attribute.type, what: what)
            case "defaultExpression":
                guard let expression = reader.string(item.value, what: "defaultExpression of \(what)") else { continue }
                if reader.value("default", in: entries).map(reader.isNull) == false {
                    reader.report(item.value, "\(what) has both default and defaultExpression; give one.")
                } else if expression.allSatisfy(\.isWhitespace) || expression.contains(where: \.isNewline) {
                    reader.report(item.value, "the defaultExpression of \(what) must be one line of SQL, such as now().")
                } else {
                    attribute.defaultValue = .expression(expression)
                }
            default: break
            }
        }
        return attribute
    }

    private mutating func decodeRelationship(_ entry: YAMLReader.Entry, of entity: String) -> Relationship? {
        let required = (key: "destination", withWhat: "the name of an entity")
        guard let (what, entries, destinationNode) = propertyEntries(entry, "relationship", of: entity, Self.relationshipKeys, required)
        else { return nil }
        guard let destination = reader.string(destinationNode, what: "destination of \(what)") else { return nil }
        var relationship = Relationship(name: entry.key, destination: destination, location: reader.location(of: entry.keyNode))
        for item in entries {
            switch item.key {
            case "toMany": relationship.isToMany = reader.bool(item.value, what: "toMany of \(what)") ?? false
            case "optional": relationship.isOptional = reader.bool(item.value, what: "optional of \(what)") ?? true
            case "inverse": relationship.inverse = reader.string(item.value, what: "inverse of \(what)")
            case "minCount": relationship.minCount = reader.int(item.value, what: "minCount of \(what)")
            case "maxCount": relationship.maxCount = reader.int(item.value, what: "maxCount of \(what)")
            case "renamingIdentifier": relationship.renamingIdentifier = reader.string(item.value, what: "renamingIdentifier of \(what)")
            case "column": relationship.columnOverride = reader.string(item.value, what: "column of \(what)")
            case "deferred": relationship.isDeferred = reader.bool(item.value, what: "deferred of \(what)") ?? false
            case "indexed": relationship.isIndexed = reader.bool(item.value, what: "indexed of \(what)") ?? true
            case "joinOnDelete":
                if let rule: DeleteRule = choice(item, of: what, "rules") { relationship.joinOnDelete = rule == .cascade ? nil : rule }
            case "joinTable": relationship.joinTableOverride = reader.string(item.value, what: "joinTable of \(what)")
            case "joinColumns":
                guard let items = item.value.sequence else {
                    reader.report(item.value, "joinColumns of \(what) is a list of two column names: [ownerColumn, destinationColumn].")
                    continue
                }
                relationship.joinColumnsOverride = items.compactMap { reader.string($0, what: "a column of joinColumns of \(what)") }
            case "joinKey":
                if let key: JoinKey = choice(item, of: what, "keys") { relationship.joinKey = key == .primaryKey ? nil : key }
            case "joinOnUpdate":
                if let rule: DeleteRule = choice(item, of: what, "rules") { relationship.joinOnUpdate = rule == .noAction ? nil : rule }
            case "onUpdate":
                if let rule: DeleteRule = choice(item, of: what, "rules") { relationship.onUpdate = rule == .noAction ? nil : rule }
            case "deleteRule":
                if let rule: DeleteRule = choice(item, of: what, "rules") { relationship.deleteRule = rule }
            default: break
            }
        }
        return relationship
    }

    /// The value of `item` (a key of `what`) as one of `Value`'s cases, spelled as its raw value; nil,
    /// with a diagnostic, when it is no string or names no case (`plural` says what the cases are:
    /// `rules`, `keys`).
    private mutating func choice<Value: CaseIterable & RawRepresentable<String>>(_ item: YAMLReader.Entry, of what: String, _ plural: String) -> Value? {
        guard let text = reader.string(item.value, what: "\(item.key) of \(what)") else { return nil }
        guard let value = Value(rawValue: text) else {
            reader.report(item.value, "\(what) has unknown \(item.key) \"\(text)\"; the \(plural) are: \(Value.spelledOut).")
            return nil
        }
        return value
    }

    /// How diagnostics name the property `entry` (a `kind` of `entity`), the keys of its mapping
    /// (checked against `allowed`), and the node of its `required` key; nil, with a diagnostic, when
    /// the property is not a mapping or lacks that key (`withWhat` says what to give it).
    private mutating func propertyEntries(
        _ entry: YAMLReader.Entry, _ kind: String, of entity: String, _ allowed: [String], _ required: (key: String, withWhat: String)
    ) -> (what: String, entries: [YAMLReader.Entry], required: Node)? {
        let what = "\(kind) \(entity).\(entry.key)"
        guard let entries = reader.entries(of: entry.value, what: what) else { return nil }
        reader.checkKeys(entries, allowed: allowed, in: what)
        guard let node = reader.value(required.key, in: entries) else {
            reader.report(entry.keyNode, "\(what) has no \(required.key); add \(required.key): with \(required.withWhat).")
            return nil
        }
        return (what, entries, node)
    }

    /// One entry of an entity's `indexes:`: `{ on: [keys], unique:, using:, where: }`.
    private mutating func decodeIndex(_ node: Node, of entity: String) -> EntityIndex? {
        let what = "an index of \(entity)"
        guard let entries = reader.entries(of: node, what: what) else { return nil }
        reader.checkKeys(entries, allowed: ["on", "unique", "using", "where"], in: what)
        guard let keysNode = reader.value("on", in: entries) else {
            reader.report(node, "\(what) has no on; add on: [its keys].")
            return nil
        }
        let keys = sequence(keysNode, what: "on of \(what)").compactMap { sqlCondition($0, what: "a key of \(what)") }
        guard !keys.isEmpty else { return nil }
        var index = EntityIndex(keys: keys)
        for item in entries {
            switch item.key {
            case "unique": index.isUnique = reader.bool(item.value, what: "unique of \(what)") ?? false
            case "using": index.method = reader.string(item.value, what: "using of \(what)").flatMap { $0 == "btree" ? nil : $0 }
            case "where": index.predicate = sqlCondition(item.value, what: "where of \(what)")
            default: break
            }
        }
        if let method = index.method, method.wholeMatch(of: /[a-z_][a-z0-9_]*/) == nil {
            reader.report(node, "\(what) uses \"\(method)\", which is not an access method's name (btree, gin, gist, hash, brin).")
            return nil
        }
        return index
    }

    /// The items of a YAML sequence, or reports that `what` must be a list.
    /// `foreignObjects:`: a list of `<kind> <name>` as `verify` names foreign objects.
    private mutating func decodeForeignObjects(_ node: Node) -> [String] {
        sequence(node, what: "foreignObjects").compactMap { item in
            guard let text = reader.string(item, what: "an entry of foreignObjects") else { return nil }
            let words = text.split(separator: " ", maxSplits: 1)
            guard words.count == 2, Self.foreignObjectKinds.contains(where: { text.hasPrefix($0 + " ") }) else {
                reader.report(item, "\"\(text)\" is not a foreign object as verify names one: a kind (\(Self.foreignObjectKinds.joined(separator: ", "))) "
                    + "and a name, such as \"view big_orders\" or \"trigger order.touch\".")
                return nil
            }
            return text
        }
    }

    /// The kinds of objects `foreignObjects:` may list: what a schema holds that the model cannot carry.
    static let foreignObjectKinds = ["trigger", "function", "procedure", "aggregate", "view", "materialized view", "policy", "rule", "type", "domain",
                                     "operator", "collation", "text search configuration", "foreign table"]

    private mutating func sequence(_ node: Node, what: String) -> [Node] {
        guard let items = node.sequence else {
            reader.report(node, "\(what) must be a list ([…]).")
            return []
        }
        return Array(items)
    }

    /// One line of SQL, a condition (`price >= 0`), or reports what is wrong with it.
    private mutating func sqlCondition(_ node: Node, what: String) -> String? {
        guard let condition = reader.string(node, what: what) else { return nil }
        guard !condition.allSatisfy(\.isWhitespace), !condition.contains(where: \.isNewline) else {
            reader.report(node, "\(what) must be one line of SQL, such as price >= 0.")
            return nil
        }
        return condition
    }

    private mutating func decodeDefault(_ node: Node, type: AttributeType, what: String) -> DefaultValue? {
        if reader.isNull(node) { return nil }
        let written: DefaultValue.Written
        if let scalar = node.scalar {
            written = .init(text: scalar.string, isQuoted: scalar.style != .plain && scalar.style != .any)
        } else if type == .json, let json = YAMLJSON.json(from: node) {
            written = .init(text: "", isQuoted: false, collectionJSON: json)
        } else {
            reader.report(node, "the default of \(what) must be a single value.")
            return nil
        }
        switch DefaultValue.parse(written, as: type) {
        case .success(let value):
            return value
        case .failure(let problem):
            let shown = written.collectionJSON ?? (written.isQuoted ? "\"\(written.text)\"" : written.text)
            reader.report(node, "the default \(shown) of \(what) " + problem.sentence(for: type))
            return nil
        }
    }
}
