import Foundation

extension ModelFamily {
    /// Writes the family as the new directory `<parent>/<name>/`: `family.yaml` and one version file
    /// per version, all at once (they are written aside, then moved into place), never over an
    /// existing directory.
    ///
    /// - Parameters:
    ///   - manifestHeader: Comment lines for `family.yaml`.
    ///   - versionHeaders: Comment lines for each version's file, by version name.
    /// - Returns: The family's directory.
    /// - Throws: ``FamilyWriteError/invalidName(_:)`` when the family's or a version's name is not
    ///   one plain file name (an imported schema's `../../x`), before anything is written;
    ///   ``FamilyWriteError/exists(_:)`` when the directory exists; file-system errors.
    @discardableResult
    public func write(into parent: URL, manifestHeader: [String] = [], versionHeaders: [String: [String]] = [:]) throws -> URL {
        for name in [name] + versionNames where !Self.isFileName(name) { throw FamilyWriteError.invalidName(name) }
        let directory = parent.appendingPathComponent(name)
        guard !FileManager.default.fileExists(atPath: directory.path) else { throw FamilyWriteError.exists(directory.path) }
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let staging = parent.appendingPathComponent(".\(name).importing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
        do {
            try Data(manifestText(header: manifestHeader).utf8).write(to: staging.appendingPathComponent("family.yaml"))
            for version in versions {
                let text = version.yamlText(header: versionHeaders[version.name] ?? [])
                try Data(text.utf8).write(to: staging.appendingPathComponent(version.name + ".yaml"))
            }
            try FileManager.default.moveItem(at: staging, to: directory)
        } catch {
            try? FileManager.default.removeItem(at: staging)
            if FileManager.default.fileExists(atPath: directory.path), (error as? CocoaError)?.code == .fileWriteFileExists {
                throw FamilyWriteError.exists(directory.path)
            }
            throw error
        }
        return directory
    }
}

extension ModelFamily {
    /// Whether `name` can name a family's directory or a version's file as it is: letters, digits,
    /// `_`, `.` and `-`, starting with a letter or a digit, at most 200 bytes. So no name from
    /// elsewhere is a path (`../x`, `/x`, `a/b`), hidden, or holds a control character.
    static func isFileName(_ name: String) -> Bool {
        name.utf8.count <= 200 && name.wholeMatch(of: /[A-Za-z0-9][A-Za-z0-9_.-]*/) != nil
    }
}

/// Why a family could not be written.
public enum FamilyWriteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The family's directory already exists; nothing was written.
    case exists(String)
    /// The family's or a version's name is not one plain file name; nothing was written.
    case invalidName(String)

    public var description: String {
        switch self {
        case .exists(let path): "\(path) already exists; choose another family name (--family) or remove it"
        case .invalidName(let name):
            "\(CanonicalText.quoted(name)) cannot name a family's directory or a version's file: a name has only letters, digits, "
                + "\"_\", \".\" and \"-\", starts with a letter or digit and is at most 200 bytes; choose another family name (--family)"
        }
    }
}
