/// A check constraint, held as structure rather than SQL text so it can be compared and quoted.
public struct CheckConstraint: Hashable, Sendable, Codable {
    /// What a check constraint requires.
    public enum Condition: Hashable, Sendable, Codable {
        /// `column IN (values…)`: the discriminator holds a concrete entity's name.
        case isOneOf(column: String, values: [String])
        /// `discriminator NOT IN (entities…) OR column IS NOT NULL`: a required property of a
        /// sub-entity, stored in a nullable column of its root's table, must be set on rows of that
        /// sub-entity and its descendants.
        case requiredForEntities(column: String, discriminator: String, entities: [String])
        /// A condition the model states in SQL (an attribute's `check:` or an entity's `checks:`),
        /// with the columns it reads.
        case expression(String, columns: [String])
    }

    /// The constraint's name.
    public var name: String
    /// What the constraint requires.
    public var condition: Condition

    /// Creates a check constraint.
    public init(name: String, condition: Condition) {
        self.name = name
        self.condition = condition
    }
}
