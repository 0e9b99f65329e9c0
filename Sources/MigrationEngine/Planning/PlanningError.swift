/// A plan could not be made. Nothing has been touched. (A version the family does not have is
/// ``UnknownVersion``, from EntityModel.)
public enum PlanningError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The step between two adjacent versions has no mapping and cannot be inferred.
    case stepNotPossible(from: String, to: String, reasons: [String])
    /// The step has a mapping model (`file`, with its entity `mappings`), but the step is refused
    /// for another reason: the changes outside its mappings cannot be inferred, or the archive
    /// cannot keep what the step changes.
    case mappedStepNotPossible(from: String, to: String, file: String, mappings: [String], reasons: [String])
    /// The step's mapping model loaded, but cannot be compiled into SQL for this pair.
    case cannotCompile(from: String, to: String, file: String, reason: String)
    /// The step's mapping model leaves a required destination attribute or to-one empty that no
    /// mapping, default or inferred move fills: each reason names the mapping and the property.
    case mappingLeavesRequiredValuesEmpty(from: String, to: String, file: String, reasons: [String])

    public var description: String {
        switch self {
        case let .stepNotPossible(from, to, reasons):
            return "cannot migrate \(from) → \(to): there is no mapping model for this pair and direction, and the change cannot be inferred:"
                + reasons.map { "\n  - \($0)" }.joined()
                + "\n  Add a mapping model for \(from) → \(to)."
        case let .mappedStepNotPossible(from, to, file, mappings, reasons):
            return "cannot migrate \(from) → \(to): the mapping model \(file) (mappings \(mappings.joined(separator: ", "))) is for this pair, "
                + "but the step is refused; what its mappings do not map is inferred, and this cannot be:"
                + reasons.map { "\n  - \($0)" }.joined()
                + "\n  Map it in \(file) too, or change the versions."
        case let .cannotCompile(from, to, file, reason):
            return "cannot migrate \(from) → \(to): the mapping model \(file) cannot be compiled: \(reason)"
        case let .mappingLeavesRequiredValuesEmpty(from, to, file, reasons):
            return "cannot migrate \(from) → \(to): the mapping model \(file) leaves required values empty that no mapping, default or inferred rule fills:"
                + reasons.map { "\n  - \($0)" }.joined()
        }
    }
}
