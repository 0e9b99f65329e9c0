/// A name and an ordered list of a table's columns: what an ``Index``, a ``PrimaryKey`` and a
/// ``UniqueConstraint`` each record. `Kind` keeps them apart, so that one never stands for another.
public struct NamedColumnList<Kind: NamedColumnListKind>: Hashable, Sendable, Codable {
    /// The index's or constraint's name (a unique constraint's is also the name of its index).
    public var name: String
    /// The columns, in order.
    public var columns: [String]

    /// Creates an index or a constraint of this kind.
    public init(name: String, columns: [String]) {
        self.name = name
        self.columns = columns
    }
}

/// What a ``NamedColumnList`` is: ``IndexKind``, ``PrimaryKeyKind`` or ``UniqueConstraintKind``.
public protocol NamedColumnListKind: Sendable {}
