import EntityModel
import Foundation
import Yams

extension MappingModel {
    /// Loads every mapping file of `family` from `<family directory>/Mappings/*.yaml`, validating
    /// each against both of its model versions and against the registered policies. Every mistake,
    /// in every file, is reported with its file and line.
    public static func loadAll(for family: ModelFamily, policies: PolicyRegistry) throws(ModelLoadError) -> [MappingModel] {
        guard let familyDirectory = family.directory else { return [] }
        let directory = familyDirectory.appendingPathComponent("Mappings")
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        return try loadAll(in: directory, for: family, policies: policies)
    }

    /// Loads every mapping file (`*.yaml`) of `directory` for `family`, as ``loadAll(for:policies:)``
    /// does for the family's own: a second set of mapping models, such as
    /// `Migrations/Recipes/Mappings/Declarative`, to use instead of the family's for the pairs it
    /// maps (``replacing(_:with:)``). Messages name the files from the family's parent directory
    /// when they are inside the family (`Recipes/Mappings/Declarative/v2-to-v3.yaml`).
    public static func loadAll(in directory: URL, for family: ModelFamily, policies: PolicyRegistry) throws(ModelLoadError) -> [MappingModel] {
        let label = Self.label(of: directory, in: family)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else {
            throw ModelLoadError(diagnostics: [ModelDiagnostic(file: directory.path, line: 0, message: "cannot read the directory of mapping models.")])
        }
        let files = names.filter { $0.hasSuffix(".yaml") }.sorted()
        var models: [MappingModel] = []
        var diagnostics: [ModelDiagnostic] = []
        for name in files {
            let path = label + "/" + name
            do {
                let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
                var loader = MappingLoader(file: path, family: family, policies: policies)
                if let model = loader.load(text) { models.append(model) }
                diagnostics += loader.reader.diagnostics
            } catch {
                diagnostics.append(ModelDiagnostic(file: path, line: 0, message: "cannot read the file: \(error.localizedDescription)"))
            }
        }
        var seen: [String: String] = [:]
        for model in models {
            let pair = model.sourceVersion + " → " + model.destinationVersion
            if let other = seen[pair] {
                diagnostics.append(ModelDiagnostic(file: model.file, line: 1, message: "a second mapping model for \(pair); \(other) already maps it."))
            }
            seen[pair] = model.file
        }
        guard diagnostics.isEmpty else { throw ModelLoadError(diagnostics: diagnostics) }
        return models
    }

    /// `defaults`, except that each pair and direction `replacements` maps is mapped by the
    /// replacement (a second mapping directory picked over the family's own).
    public static func replacing(_ defaults: [MappingModel], with replacements: [MappingModel]) -> [MappingModel] {
        let replaced = Set(replacements.map { $0.sourceVersion + " → " + $0.destinationVersion })
        return defaults.filter { !replaced.contains($0.sourceVersion + " → " + $0.destinationVersion) } + replacements
    }

    /// How messages name the files of `directory`: from the family's parent directory when inside
    /// the family, else by the directory's own name.
    private static func label(of directory: URL, in family: ModelFamily) -> String {
        let path = directory.standardizedFileURL.path
        if let familyDirectory = family.directory?.standardizedFileURL, path.hasPrefix(familyDirectory.path + "/") || path == familyDirectory.path {
            return familyDirectory.lastPathComponent + path.dropFirst(familyDirectory.path.count)
        }
        return directory.lastPathComponent
    }

    /// Loads one mapping file's text (for tests and bundled resources).
    public static func load(yaml: String, file: String, family: ModelFamily, policies: PolicyRegistry) throws(ModelLoadError) -> MappingModel {
        var loader = MappingLoader(file: file, family: family, policies: policies)
        let model = loader.load(yaml)
        guard let model, loader.reader.diagnostics.isEmpty else {
            throw ModelLoadError(diagnostics: loader.reader.diagnostics)
        }
        return model
    }
}

/// Reads and validates one mapping file.
struct MappingLoader {
    var reader: YAMLReader
    let family: ModelFamily
    let policies: PolicyRegistry
    /// The relationship mappings in the short form (`rel: Mapping`, no `from:`), as
    /// `mapping.relationship`.
    var defaultedFroms: Set<String> = []

    init(file: String, family: ModelFamily, policies: PolicyRegistry) {
        self.reader = YAMLReader(file: file)
        self.family = family
        self.policies = policies
    }

    mutating func load(_ text: String) -> MappingModel? {
        let root: Node
        do {
            guard let node = try ModelYAML.compose(text) else {
                reader.diagnostics.append(ModelDiagnostic(file: reader.file, line: 1, message: "the file is empty."))
                return nil
            }
            root = node
        } catch {
            reader.diagnostics.append(ModelDiagnostic(yamlError: error, in: reader.file))
            return nil
        }
        guard let entries = reader.entries(of: root, what: "a mapping model") else { return nil }
        reader.checkKeys(entries, allowed: ["source", "destination", "loses", "entityMappings"], in: "a mapping model")
        guard let sourceNode = reader.value("source", in: entries), let destinationNode = reader.value("destination", in: entries) else {
            reader.report(root, "a mapping model needs `source:` and `destination:` versions.")
            return nil
        }
        guard let sourceName = reader.string(sourceNode, what: "source"),
              let destinationName = reader.string(destinationNode, what: "destination") else { return nil }
        guard let source = family.version(named: sourceName) else {
            reader.report(sourceNode, "unknown version \"\(sourceName)\"; the family has \(family.versionNames.joined(separator: ", ")).")
            return nil
        }
        guard let destination = family.version(named: destinationName) else {
            reader.report(destinationNode, "unknown version \"\(destinationName)\"; the family has \(family.versionNames.joined(separator: ", ")).")
            return nil
        }
        if let s = family.versionNames.firstIndex(of: sourceName), let d = family.versionNames.firstIndex(of: destinationName), abs(s - d) != 1 {
            reader.report(destinationNode, "a mapping model maps adjacent versions; \(sourceName) and \(destinationName) are not adjacent.")
        }
        var loses: [String] = []
        if let node = reader.value("loses", in: entries) {
            if let sequence = node.sequence { loses = sequence.compactMap { reader.string($0, what: "loses") } }
            else if let text = reader.string(node, what: "loses") { loses = [text] }
        }
        var mappings: [EntityMapping] = []
        var unloaded: Set<String> = []
        if let list = reader.value("entityMappings", in: entries) {
            guard let sequence = list.sequence else {
                reader.report(list, "entityMappings must be a list of entity mappings.")
                return nil
            }
            for node in sequence {
                if let mapping = entityMapping(node, source: source, destination: destination) {
                    mappings.append(mapping)
                } else if let name = node.mapping?.first(where: { $0.key.string == "name" })?.value.string {
                    unloaded.insert(name)
                }
            }
        }
        validateReferences(mappings, source: source, unloaded: unloaded)
        let direction = (try? family.path(from: sourceName, to: destinationName).direction) ?? .up
        let pair = VersionPair(source: source, destination: destination, direction: direction)
        mappings = resolveDistinctLinks(mappings, source: source, destination: destination)
        validatePolicyMappings(mappings, across: pair)
        validateDistinctMappings(mappings, across: pair)
        return MappingModel(file: reader.file, sourceVersion: sourceName, destinationVersion: destinationName, entityMappings: mappings,
                            loses: loses, direction: direction, policies: policies)
    }
}
