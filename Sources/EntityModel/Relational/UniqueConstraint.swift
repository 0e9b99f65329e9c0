/// A unique constraint: `CONSTRAINT <table>_<column>_key UNIQUE (…)`.
public struct UniqueConstraint: Hashable, Sendable, Codable {
    /// The constraint's name (also the name of its index).
    public var name: String
    /// The constrained columns.
    public var columns: [String]

    /// Creates a unique constraint.
    public init(name: String, columns: [String]) {
        self.name = name
        self.columns = columns
    }
}
