/// Which way a path moves along a family's ordered versions.
public enum MigrationDirection: String, Sendable, Codable {
    /// Toward newer versions.
    case up
    /// Toward older versions.
    case down
    /// Nowhere: the path starts where it ends.
    case none
}

/// Two adjacent versions of a family, in the order a path crosses them: one step's worth of change.
public struct VersionPair: Sendable, Hashable, CustomStringConvertible {
    public let source: ModelVersion
    public let destination: ModelVersion
    /// `.up` when `source` is the older version.
    public let direction: MigrationDirection

    public init(source: ModelVersion, destination: ModelVersion, direction: MigrationDirection) {
        self.source = source
        self.destination = destination
        self.direction = direction
    }

    /// The same pair crossed the other way.
    public var reversed: VersionPair {
        VersionPair(source: destination, destination: source, direction: direction == .up ? .down : .up)
    }

    /// Whether `source` is the older version.
    public var isUpward: Bool { direction == .up }

    /// `v1 → v2`.
    public var description: String { "\(source.name) → \(destination.name)" }
}

/// The versions a tenant walks through from one version to another, in either direction: the one
/// place that knows the family's order (ALIterativeMigrator's ordered model names).
public struct VersionPath: Sendable, Hashable, CustomStringConvertible {
    /// The versions crossed, first to last (one when the path goes nowhere).
    public let versions: [ModelVersion]
    public let direction: MigrationDirection

    /// A path through `versions`, which must be adjacent in their family, in `direction`; made by
    /// ``ModelFamily/path(from:to:)``.
    public init(versions: [ModelVersion], direction: MigrationDirection) {
        precondition(!versions.isEmpty, "a path has at least one version")
        self.versions = versions
        self.direction = direction
    }

    public var source: ModelVersion { versions[0] }
    public var destination: ModelVersion { versions[versions.count - 1] }

    /// The adjacent pairs crossed, in order.
    public var pairs: [VersionPair] {
        zip(versions, versions.dropFirst()).map { VersionPair(source: $0, destination: $1, direction: direction) }
    }

    /// Whether the path goes nowhere.
    public var isEmpty: Bool { versions.count < 2 }

    /// `v1 → v2 → v3`.
    public var description: String { versions.map(\.name).joined(separator: " → ") }
}

/// A version name that is not in the family.
public struct UnknownVersion: Error, Sendable, Hashable, CustomStringConvertible {
    public let version: String
    public let family: String
    /// The family's versions, oldest first.
    public let known: [String]

    public var description: String {
        "family \(family) has no version \(version.debugDescription) (it has \(known.joined(separator: ", ")))"
    }
}

extension ModelFamily {
    /// The path from `source` to `destination`, up or down the family's order.
    ///
    /// - Throws: ``UnknownVersion`` for a name the family does not have.
    public func path(from source: String, to destination: String) throws(UnknownVersion) -> VersionPath {
        let start = try requireIndex(of: source)
        let end = try requireIndex(of: destination)
        let direction: MigrationDirection = start == end ? .none : (start < end ? .up : .down)
        return VersionPath(versions: stride(from: start, through: end, by: start <= end ? 1 : -1).map { versions[$0] }, direction: direction)
    }

    /// The version named `name`, or the latest when `name` is nil: the one check every entry point
    /// makes before touching the database.
    ///
    /// - Throws: ``UnknownVersion``.
    public func requireVersion(named name: String?) throws(UnknownVersion) -> ModelVersion {
        guard let name else { return latestVersion }
        return versions[try requireIndex(of: name)]
    }

    /// The adjacent pairs of the family, oldest first, each crossed upward.
    public var adjacentPairs: [VersionPair] {
        zip(versions, versions.dropFirst()).map { VersionPair(source: $0, destination: $1, direction: .up) }
    }

    private func requireIndex(of name: String) throws(UnknownVersion) -> Int {
        guard let index = index(ofVersion: name) else { throw UnknownVersion(version: name, family: self.name, known: versionNames) }
        return index
    }
}
