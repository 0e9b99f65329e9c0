import Yams

/// Turns the text of a version file into entities, reporting every mistake of form (wrong kinds,
/// unknown keys, unknown types, defaults that do not fit) with its line. Mistakes of meaning are left
/// to ``ModelValidator``.
struct VersionFileDecoder {
    static let versionKeys = ["entities"]
    static let entityKeys = ["attributes", "relationships", "table", "renamingIdentifier", "parent", "abstract"]

    var reader: YAMLReader

    init(file: String) {
        reader = YAMLReader(file: file)
    }

    /// The mistakes found.
    var diagnostics: [ModelDiagnostic] { reader.diagnostics }

    /// The entities declared in `yaml`, as far as they could be read.
    mutating func decode(yaml: String) -> [Entity] {
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch {
            reader.diagnostics.append(Self.diagnostic(for: error, in: reader.file))
            return []
        }
        guard let root else {
            reader.diagnostics.append(ModelDiagnostic(file: reader.file, line: 1, message:
                "the file is empty; a version file is a mapping with the key entities."))
            return []
        }
        guard let entries = reader.entries(of: root, what: "a version file") else { return [] }
        reader.checkKeys(entries, allowed: Self.versionKeys, in: "a version file")
        guard let entitiesNode = reader.value("entities", in: entries) else {
            reader.report(root, "a version file needs the key entities.")
            return []
        }
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
            case "renamingIdentifier": entity.renamingIdentifier = reader.string(item.value, what: "renamingIdentifier of \(what)")
            case "parent": entity.parent = reader.string(item.value, what: "parent of \(what)")
            case "abstract": entity.isAbstract = reader.bool(item.value, what: "abstract of \(what)") ?? false
            case "attributes":
                let attributes = reader.entries(of: item.value, what: "attributes of \(what)", allowsNull: true) ?? []
                entity.attributes = attributes.compactMap { decodeAttribute($0, of: name) }
            case "relationships":
                let relationships = reader.entries(of: item.value, what: "relationships of \(what)", allowsNull: true) ?? []
                entity.relationships = relationships.compactMap { decodeRelationship($0, of: name) }
            default: break
            }
        }
        return entity
    }

    /// A diagnostic for an error Yams threw while parsing.
    static func diagnostic(for error: any Error, in file: String) -> ModelDiagnostic {
        switch error as? YamlError {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _), .composer(_, let problem, let mark, _):
            return ModelDiagnostic(file: file, line: mark.line, column: mark.column, message: "this is not valid YAML: \(problem).")
        case .duplicatedKeysInMapping(let duplicates, let context):
            let keys = duplicates.map { "\"\($0)\"" }.joined(separator: ", ")
            return ModelDiagnostic(file: file, line: context.mark.line, column: context.mark.column,
                                   message: "the key \(keys) appears more than once in the same mapping.")
        case .reader(let problem, _, _, _):
            return ModelDiagnostic(file: file, line: 1, message: "this file cannot be read as UTF-8 text: \(problem).")
        default:
            return ModelDiagnostic(file: file, line: 1, message: "this is not valid YAML: \(error).")
        }
    }
}
