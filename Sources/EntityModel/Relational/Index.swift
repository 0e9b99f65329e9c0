/// An index: `CREATE [UNIQUE] INDEX <name> ON … [USING method] (…) [WHERE …]`. The model's own
/// indexes (`indexed: true`, a to-one's key) are plain B-tree indexes on their columns in order; an
/// entity's `indexes:` may add uniqueness, a method, expressions, operator classes and a predicate.
public struct Index: Hashable, Sendable, Codable {
    /// The index's name.
    public var name: String
    /// The columns it reads, in key order for a plain index (where a key is an expression, the
    /// columns the expression names): what a change of a column must put back.
    public var columns: [String]
    /// The key elements in SQL, one per key (`"email"`, `lower(email)`, `title varchar_pattern_ops`);
    /// nil for a plain index on ``columns``.
    public var elements: [String]?
    /// Whether it is a `UNIQUE` index; nil for no.
    public var isUnique: Bool?
    /// The access method (`gin`, `hash`, …); nil for `btree`.
    public var method: String?
    /// The `WHERE` condition of a partial index, in SQL.
    public var predicate: String?

    /// Creates an index.
    public init(name: String, columns: [String], elements: [String]? = nil, isUnique: Bool? = nil, method: String? = nil, predicate: String? = nil) {
        self.name = name
        self.columns = columns
        self.elements = elements
        self.isUnique = isUnique == true ? true : nil
        self.method = method == "btree" ? nil : method
        self.predicate = predicate
    }

    /// Whether two indexes are one definition, names aside.
    public func hasDefinition(of other: Index) -> Bool {
        (columns, elements, isUnique, method, predicate) == (other.columns, other.elements, other.isUnique, other.method, other.predicate)
    }
}
