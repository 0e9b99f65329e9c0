import Yams

/// The contents of `family.yaml`: the family's name and its versions, oldest first.
struct FamilyManifest {
    /// The manifest's file name in a family directory.
    static let fileName = "family.yaml"
    static let keys = ["family", "versions"]

    /// A version as listed, with its place in the manifest for messages.
    struct ListedVersion {
        var name: String
        var line: Int
        var column: Int?
    }

    var name: String
    var versions: [ListedVersion]

    /// Reads a manifest, reporting every mistake.
    struct Reader {
        var reader: YAMLReader
        let directoryName: String

        init(file: String, directoryName: String) {
            reader = YAMLReader(file: file)
            self.directoryName = directoryName
        }

        var diagnostics: [ModelDiagnostic] { reader.diagnostics }

        mutating func read(yaml: String) -> FamilyManifest {
            var manifest = FamilyManifest(name: directoryName, versions: [])
            let root: Node?
            do {
                root = try ModelYAML.compose(yaml)
            } catch {
                reader.diagnostics.append(ModelDiagnostic(yamlError: error, in: reader.file))
                return manifest
            }
            guard let root, let entries = reader.entries(of: root, what: "family.yaml") else {
                if root == nil {
                    reader.diagnostics.append(ModelDiagnostic(file: reader.file, line: 1, message:
                        "family.yaml is empty; it needs the keys family and versions."))
                }
                return manifest
            }
            reader.checkKeys(entries, allowed: FamilyManifest.keys, in: "family.yaml")
            if let familyNode = reader.value("family", in: entries) {
                if let name = reader.string(familyNode, what: "family"), name != directoryName {
                    reader.report(familyNode, "the family is named \(name), but its directory is \(directoryName); use the same name.")
                }
            } else {
                reader.report(root, "family.yaml needs the key family with the family's name.")
            }
            guard let versionsNode = reader.value("versions", in: entries) else {
                reader.report(root, "family.yaml needs the key versions with the list of versions, oldest first.")
                return manifest
            }
            manifest.versions = readVersions(versionsNode)
            return manifest
        }

        private mutating func readVersions(_ node: Node) -> [ListedVersion] {
            guard let sequence = node.sequence, !sequence.isEmpty else {
                reader.report(node, "versions must be a non-empty list of version names, oldest first.")
                return []
            }
            var versions: [ListedVersion] = []
            for item in sequence {
                guard let name = reader.string(item, what: "a version name") else { continue }
                let location = reader.location(of: item)
                guard name.wholeMatch(of: /[A-Za-z0-9][A-Za-z0-9_.-]*/) != nil, name != FamilyManifest.fileName.dropLast(5) else {
                    reader.report(item, "\"\(name)\" is not a valid version name: it starts with a letter or digit and has only "
                        + "letters, digits, \"_\", \".\" and \"-\".")
                    continue
                }
                if versions.contains(where: { $0.name == name }) {
                    reader.report(item, "version \(name) is listed twice.")
                    continue
                }
                versions.append(ListedVersion(name: name, line: location.line, column: location.column))
            }
            return versions
        }
    }
}
