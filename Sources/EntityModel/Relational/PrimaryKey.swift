/// A primary key: `CONSTRAINT <table>_pkey PRIMARY KEY (…)`.
public struct PrimaryKey: Hashable, Sendable, Codable {
    /// The constraint's name.
    public var name: String
    /// The key's columns, in order.
    public var columns: [String]

    /// Creates a primary key.
    public init(name: String, columns: [String]) {
        self.name = name
        self.columns = columns
    }
}
