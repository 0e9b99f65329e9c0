/// Where an entity, attribute or relationship was declared: a file and a line.
///
/// Locations are carried for messages only. They never take part in equality or hashing, so two
/// models that differ only in layout compare equal.
public struct SourceLocation: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The file, relative to the directory holding the family (e.g. `Recipes/v1.yaml`), or as given.
    public var file: String
    /// The line, starting at 1.
    public var line: Int
    /// The column, starting at 1, when known.
    public var column: Int?

    /// Creates a location.
    public init(file: String, line: Int, column: Int? = nil) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line`.
    public var description: String { "\(file):\(line)" }

    /// Always `true`: locations do not distinguish values.
    public static func == (lhs: SourceLocation, rhs: SourceLocation) -> Bool { true }

    /// Adds nothing: locations do not distinguish values.
    public func hash(into hasher: inout Hasher) {}
}
