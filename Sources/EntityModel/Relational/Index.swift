/// A (non-unique) B-tree index: `CREATE INDEX <table>_<column>_idx ON … (…)`.
public struct Index: Hashable, Sendable, Codable {
    /// The index's name.
    public var name: String
    /// The indexed columns, in order.
    public var columns: [String]

    /// Creates an index.
    public init(name: String, columns: [String]) {
        self.name = name
        self.columns = columns
    }
}
