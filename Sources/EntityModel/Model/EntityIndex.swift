/// An index an entity declares in `indexes:`, beyond `indexed: true` on one property: several keys,
/// expressions, operator classes, uniqueness, an access method, a predicate.
public struct EntityIndex: Hashable, Sendable, Codable {
    /// The keys in order: a property name (its column), a property name followed by SQL
    /// (`title varchar_pattern_ops`, `createdAt DESC`), or an SQL expression (`lower(email)`).
    public var keys: [String]
    /// `UNIQUE`.
    public var isUnique: Bool
    /// The access method (`gin`, `gist`, `hash`, `brin`); nil for `btree`.
    public var method: String?
    /// The condition of a partial index, in SQL over the table's columns.
    public var predicate: String?

    /// Creates an index declaration.
    public init(keys: [String], isUnique: Bool = false, method: String? = nil, predicate: String? = nil) {
        self.keys = keys
        self.isUnique = isUnique
        self.method = method == "btree" ? nil : method
        self.predicate = predicate
    }

    /// A stable text for the version hash.
    var canonicalText: String {
        "index " + keys.map(CanonicalText.quoted).joined(separator: ",") + (isUnique ? " unique" : "")
            + (method.map { " using " + CanonicalText.quoted($0) } ?? "") + (predicate.map { " where " + CanonicalText.quoted($0) } ?? "")
    }
}
