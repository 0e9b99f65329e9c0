/// How a step runs when its tenant migrates online, and why: decided from the compiled step alone,
/// before anything runs, so that `plan` can show it.
///
/// - ``Kind/catalogOnly``: every statement changes only the catalog (a rename, a new nullable
///   column, a new table, dropping NOT NULL) and nothing is archived. The step needs no copy; it
///   runs in one short transaction whose locks wait at most `lock_timeout`.
/// - ``Kind/shadow``: the step moves data, so it runs on a shadow copy of the tenant while the app
///   goes on; what the app changes meanwhile is caught up exactly by running the same step again
///   on the changed rows (each destination row keeps the id of the source row it came from).
/// - ``Kind/writesWait``: the step cannot be caught up exactly (a policy that declares it reads
///   other rows, a stage hook, an expression that reads other rows), so it runs on the shadow while
///   the live tables are locked against writes: reads go on, writes wait until the cutover. A
///   row-local Swift policy (``PolicyLocality``) does not make a step writes-wait.
public struct OnlineStepMode: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, Codable, Comparable {
        case catalogOnly = "catalog-only"
        case shadow
        case writesWait = "writes-wait"

        /// Ordered by how much the app notices: catalog-only < shadow < writes-wait.
        public static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rank < rhs.rank }

        private var rank: Int {
            switch self {
            case .catalogOnly: 0
            case .shadow: 1
            case .writesWait: 2
            }
        }
    }

    public var kind: Kind
    /// Why, in a sentence naming what decided it (an operation, a mapping, a policy).
    public var reason: String

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public var description: String { "\(kind.rawValue): \(reason)" }
}
