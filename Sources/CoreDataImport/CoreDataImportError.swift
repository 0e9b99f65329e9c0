/// Why a Core Data model bundle could not be imported. Each case names the file (and line) at fault.
public enum CoreDataImportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The path is not a `.xcdatamodeld` bundle (or a single `.xcdatamodel`).
    case notABundle(String)
    /// The bundle holds no `.xcdatamodel` version.
    case noVersions(String)
    /// A file could not be read or is not what Core Data writes: its path, line (0 when none
    /// applies) and what is wrong.
    case unreadable(file: String, line: Int, reason: String)
    /// The order of versions given (`--version-order`) is not one of the bundle's versions each
    /// once: what is wrong with it.
    case badOrder(String)

    public var description: String {
        switch self {
        case .notABundle(let path):
            "\(path) is not a Core Data model bundle (a .xcdatamodeld directory, or one .xcdatamodel directory holding a contents file)"
        case .noVersions(let path):
            "\(path) holds no .xcdatamodel version"
        case .badOrder(let reason):
            reason
        case let .unreadable(file, line, reason):
            line > 0 ? "\(file):\(line): \(reason)" : "\(file): \(reason)"
        }
    }
}
