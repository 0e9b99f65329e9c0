/// Something an importer could not carry into the model as it was, or carried in another form:
/// the element it is about and why. Importers list every one, so nothing is dropped silently.
public struct ImportNote: Hashable, Sendable, Codable, CustomStringConvertible {
    /// How the element fared.
    public enum Kind: String, Hashable, Sendable, Codable {
        /// Left out: the model cannot say it (a trigger, a view, a composite unique constraint).
        case notExpressed = "not expressed"
        /// Carried in another form the model can say (a `varchar(20)` column as a `string`), or
        /// named differently (a reserved name).
        case adapted
        /// Carried, but the importer had to guess, and may have guessed wrong (the order of a
        /// Core Data bundle's versions): check it, or say what is meant.
        case warning
    }

    /// Left out, carried in another form, or a guess to check.
    public var kind: Kind
    /// The element: `table orders`, `column orders.total`, `Recipe.image`, `fetch request Recent`.
    public var element: String
    /// Why, in a sentence.
    public var reason: String

    /// A note that `element` was `kind` because of `reason`.
    public init(_ kind: Kind, _ element: String, _ reason: String) {
        self.kind = kind
        self.element = element
        self.reason = reason
    }

    /// `not expressed: index orders_total_idx: an index on an expression`.
    public var description: String { "\(kind.rawValue): \(element): \(reason)" }
}
