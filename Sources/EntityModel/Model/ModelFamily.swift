import Foundation

/// An ordered list of model versions, oldest first (ALIterativeMigrator's ordered model names).
///
/// On disk a family is a directory `Migrations/<Family>/` holding `family.yaml` and one
/// `<version>.yaml` per version; see ``load(from:)`` and `docs/ModelFormat.md`.
public struct ModelFamily: Hashable, Sendable {
    /// The family's name, e.g. `Recipes`.
    public let name: String
    /// The versions, oldest first.
    public let versions: [ModelVersion]
    /// The directory the family was loaded from, if any. Other tools find `Mappings/` and
    /// `Policies/` here.
    public let directory: URL?

    /// Creates a family from versions already built.
    ///
    /// - Throws: ``ModelLoadError`` when the list is empty or two versions share a name.
    public init(name: String, versions: [ModelVersion], directory: URL? = nil) throws(ModelLoadError) {
        var diagnostics: [ModelDiagnostic] = []
        if versions.isEmpty {
            diagnostics.append(ModelDiagnostic(file: name, line: 0, message: "family \(name) has no versions."))
        }
        var seen: Set<String> = []
        for version in versions where !seen.insert(version.name).inserted {
            diagnostics.append(ModelDiagnostic(file: name, line: 0, message: "version \(version.name) is listed twice."))
        }
        guard diagnostics.isEmpty else { throw ModelLoadError(diagnostics: diagnostics) }
        self.init(unchecked: name, versions: versions, directory: directory)
    }

    init(unchecked name: String, versions: [ModelVersion], directory: URL?) {
        self.name = name
        self.versions = versions
        self.directory = directory
    }

    /// The version named `name`.
    public func version(named name: String) -> ModelVersion? {
        versions.first { $0.name == name }
    }

    /// The position of the version named `name` in the list, oldest first.
    public func index(ofVersion name: String) -> Int? {
        versions.firstIndex { $0.name == name }
    }

    /// The newest version.
    public var latestVersion: ModelVersion {
        versions[versions.count - 1]
    }

    /// The names of the versions, oldest first.
    public var versionNames: [String] {
        versions.map(\.name)
    }
}
