import Foundation

extension ModelFamily {
    /// Loads and validates the family in `directory` (e.g. `Migrations/Recipes`).
    ///
    /// Reads `family.yaml`, then each listed version file. Subdirectories and files not ending in
    /// `.yaml` are ignored; any other top-level `.yaml` file must be listed. Every mistake in every
    /// file is collected before anything is thrown. Files are named in diagnostics relative to the
    /// directory that holds the family: `Recipes/v2.yaml`.
    ///
    /// - Throws: ``ModelLoadError`` with every mistake found, sorted by file and line.
    public static func load(from directory: URL) throws(ModelLoadError) -> ModelFamily {
        var loader = FamilyLoader(directory: directory.standardizedFileURL)
        return try loader.load()
    }
}

/// Loads one family directory, collecting diagnostics across all its files.
private struct FamilyLoader {
    let directory: URL
    var diagnostics: [ModelDiagnostic] = []

    init(directory: URL) {
        self.directory = directory
    }

    /// `Recipes/<file>`: a path relative to the family directory's parent.
    func displayPath(_ file: String) -> String {
        directory.lastPathComponent + "/" + file
    }

    mutating func load() throws(ModelLoadError) -> ModelFamily {
        let manifestPath = displayPath(FamilyManifest.fileName)
        let manifestURL = directory.appendingPathComponent(FamilyManifest.fileName)
        guard let text = read(manifestURL, as: manifestPath) else { throw ModelLoadError(diagnostics: diagnostics) }
        var manifestReader = FamilyManifest.Reader(file: manifestPath, directoryName: directory.lastPathComponent)
        let manifest = manifestReader.read(yaml: text)
        diagnostics += manifestReader.diagnostics

        var versions: [ModelVersion] = []
        for listed in manifest.versions {
            let fileName = listed.name + ".yaml"
            let path = displayPath(fileName)
            let url = directory.appendingPathComponent(fileName)
            guard FileManager.default.fileExists(atPath: url.path) else {
                diagnostics.append(ModelDiagnostic(file: manifestPath, line: listed.line, column: listed.column,
                                                   message: "version \(listed.name) is listed, but \(path) does not exist."))
                continue
            }
            guard let yaml = read(url, as: path) else { continue }
            let (entities, sequences, enums, foreignObjects, found) = ModelVersion.decode(yaml: yaml, file: path)
            diagnostics += found
            if found.isEmpty {
                versions.append(ModelVersion(validated: entities, sequences: sequences, name: listed.name, enums: enums, foreignObjects: foreignObjects))
            }
        }
        checkUnlistedFiles(listed: Set(manifest.versions.map { $0.name + ".yaml" }))
        guard diagnostics.isEmpty else { throw ModelLoadError(diagnostics: diagnostics) }
        return ModelFamily(unchecked: manifest.name, versions: versions, directory: directory)
    }

    private mutating func read(_ url: URL, as path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            let message = FileManager.default.fileExists(atPath: directory.path)
                ? "\(path) does not exist or cannot be read."
                : "the family directory \(directory.path) does not exist."
            diagnostics.append(ModelDiagnostic(file: path, line: 0, message: message))
            return nil
        }
        guard let text = String(data: data, encoding: .utf8) else {
            diagnostics.append(ModelDiagnostic(file: path, line: 0, message: "\(path) is not UTF-8 text."))
            return nil
        }
        return text
    }

    /// Reports every top-level `.yaml` file that is neither `family.yaml` nor a listed version.
    private mutating func checkUnlistedFiles(listed: Set<String>) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names.sorted() where name.hasSuffix(".yaml") && name != FamilyManifest.fileName && !listed.contains(name) {
            var isDirectory: ObjCBool = false
            let path = directory.appendingPathComponent(name).path
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            diagnostics.append(ModelDiagnostic(file: displayPath(name), line: 1, message:
                "file not listed: \(name) is not among the versions in \(FamilyManifest.fileName); list it or remove it."))
        }
    }
}
