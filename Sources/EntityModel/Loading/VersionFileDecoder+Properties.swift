import Yams

extension VersionFileDecoder {
    static let attributeKeys = [
        "type", "optional", "default", "unique", "indexed", "renamingIdentifier", "column", "allowsNarrowing",
    ]
    static let relationshipKeys = [
        "destination", "toMany", "inverse", "deleteRule", "optional", "minCount", "maxCount", "renamingIdentifier", "column",
    ]

    mutating func decodeAttribute(_ entry: YAMLReader.Entry, of entity: String) -> Attribute? {
        let what = "attribute \(entity).\(entry.key)"
        guard let entries = reader.entries(of: entry.value, what: what) else { return nil }
        reader.checkKeys(entries, allowed: Self.attributeKeys, in: what)
        guard let typeNode = reader.value("type", in: entries) else {
            reader.report(entry.keyNode, "\(what) has no type; add type: with one of: \(AttributeType.spelledOut).")
            return nil
        }
        // An attribute whose type is unknown is kept (as a string) so its name is still checked.
        var attribute = Attribute(name: entry.key, type: .string, location: reader.location(of: entry.keyNode))
        var typeIsKnown = false
        if let typeName = reader.string(typeNode, what: "type of \(what)") {
            if let type = AttributeType(rawValue: typeName) {
                attribute.type = type
                typeIsKnown = true
            } else {
                reader.report(typeNode, "\(what) has unknown type \"\(typeName)\"; the types are: \(AttributeType.spelledOut).")
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
            case "default" where typeIsKnown: attribute.defaultValue = decodeDefault(item.value, type: attribute.type, what: what)
            default: break
            }
        }
        return attribute
    }

    mutating func decodeRelationship(_ entry: YAMLReader.Entry, of entity: String) -> Relationship? {
        let what = "relationship \(entity).\(entry.key)"
        guard let entries = reader.entries(of: entry.value, what: what) else { return nil }
        reader.checkKeys(entries, allowed: Self.relationshipKeys, in: what)
        guard let destinationNode = reader.value("destination", in: entries) else {
            reader.report(entry.keyNode, "\(what) has no destination; add destination: with the name of an entity.")
            return nil
        }
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
            case "deleteRule":
                guard let rule = reader.string(item.value, what: "deleteRule of \(what)") else { continue }
                if let deleteRule = DeleteRule(rawValue: rule) {
                    relationship.deleteRule = deleteRule
                } else {
                    reader.report(item.value, "\(what) has unknown deleteRule \"\(rule)\"; the rules are: \(DeleteRule.spelledOut).")
                }
            default: break
            }
        }
        return relationship
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
