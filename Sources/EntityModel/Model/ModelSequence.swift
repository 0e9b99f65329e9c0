/// A sequence of a model version that no column owns (`sequences:` in a version file), such as
/// Hibernate's `hibernate_sequence` or a per-entity `product_seq` with `INCREMENT 50`: a key's
/// default draws from it with `nextval('product_seq'::regclass)`, or the application does.
///
/// A new tenant's sequence begins at ``start``; a migration leaves a tenant's sequence, and so its
/// current value, as it is. The sequences a `serial` key owns are not listed here: they come with
/// their table.
public struct ModelSequence: Hashable, Sendable, Codable {
    /// The sequence's name in the tenant's schema.
    public var name: String
    /// Its type: `bigint` (the default), `integer` or `smallint`.
    public var type: SQLType
    /// The first value a new tenant draws.
    public var start: Int64
    /// The step between values (Hibernate's allocation size: 50).
    public var increment: Int64
    /// Where the sequence was declared, when it came from a file.
    public var location: SourceLocation?

    /// Creates a sequence.
    public init(name: String, type: SQLType = .bigint, start: Int64 = 1, increment: Int64 = 1, location: SourceLocation? = nil) {
        self.name = name
        self.type = type
        self.start = start
        self.increment = increment
        self.location = location
    }

    /// The keys of its entry in a version file that differ from their defaults.
    var writtenKeys: [(key: String, value: String)] {
        var keys: [(key: String, value: String)] = []
        if type != .bigint { keys.append(("type", type.rawValue)) }
        if start != 1 { keys.append(("start", String(start))) }
        if increment != 1 { keys.append(("increment", String(increment))) }
        return keys
    }
}
