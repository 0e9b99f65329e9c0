/// A plan could not be made. Nothing has been touched.
public enum PlanningError: Error, Sendable, CustomStringConvertible, Equatable {
    case unknownVersion(String, family: String, known: [String])
    /// The step between two adjacent versions has no mapping and cannot be inferred.
    case stepNotPossible(from: String, to: String, reasons: [String])

    public var description: String {
        switch self {
        case let .unknownVersion(version, family, known):
            return "family \(family) has no version \(version.debugDescription) (it has \(known.joined(separator: ", ")))"
        case let .stepNotPossible(from, to, reasons):
            return "cannot migrate \(from) → \(to): there is no mapping model for this pair and direction, and the change cannot be inferred:"
                + reasons.map { "\n  - \($0)" }.joined()
                + "\n  Add a mapping model for \(from) → \(to)."
        }
    }
}
