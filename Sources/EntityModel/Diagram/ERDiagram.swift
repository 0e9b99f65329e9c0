/// What an entity-relationship diagram shows: one box per entity with its attributes and the
/// to-ones that hold a key, one line per relationship (both ends at once when they are inverses),
/// and one line per inheritance link.
///
/// Build one from a version (``init(version:)``), or from the walk between two versions with what
/// changed marked (``init(changesAlong:)``); render it with ``mermaid(title:)`` or ``dot(title:)``.
/// The diagram speaks the model's vocabulary (entity, attribute and relationship names, model
/// types) and notes the PostgreSQL table and column names wherever they are not the snake_case of
/// those names (a `table:` or `column:` of the model), and the key column of every to-one.
public struct ERDiagram: Hashable, Sendable {
    /// The entity boxes, in the order they are drawn.
    public var boxes: [Box]
    /// The relationship lines.
    public var links: [Link]
    /// The inheritance lines, from sub-entity to parent.
    public var inheritance: [Inheritance]

    /// Creates a diagram from its parts.
    public init(boxes: [Box], links: [Link], inheritance: [Inheritance]) {
        self.boxes = boxes
        self.links = links
        self.inheritance = inheritance
    }

    /// How an element changed between the two versions of a marked diagram.
    public enum Change: Hashable, Sendable {
        /// New in the destination.
        case added
        /// Gone in the destination.
        case removed
        /// Renamed; the name it had.
        case renamed(from: String)
        /// Now declared by another entity of the hierarchy; the entity that declared it.
        case moved(from: String)
        /// Same element, different shape; a phrase saying what it was (`was int16`).
        case changed(String)

        /// The change as a short phrase: `added`, `renamed from instructions`.
        public var phrase: String {
            switch self {
            case .added: "added"
            case .removed: "removed"
            case .renamed(let name): "renamed from \(name)"
            case .moved(let entity): "moved from \(entity)"
            case .changed(let what): "changed, \(what)"
            }
        }
    }

    /// One entity.
    public struct Box: Hashable, Sendable {
        /// The entity's name, which also identifies the box.
        public var name: String
        /// The rows: first the identity row (`id` of a root, `entity` of a sub-entity), then the
        /// attributes by name, then the key-holding to-ones by name.
        public var rows: [Row]
        /// How the entity changed, in a marked diagram.
        public var change: Change?
    }

    /// One row of a box.
    public struct Row: Hashable, Sendable {
        /// The attribute or relationship name (`id` or `entity` for the identity rows).
        public var name: String
        /// The model type (`string`, `int32`), or the destination entity of a to-one.
        public var type: String
        /// `PK`, `FK`, `UK`.
        public var keys: [String]
        /// Short notes: `optional`, `indexed`, `default 'Other'`, `column note_uuid`, `table posts`.
        public var notes: [String]
        /// How the row changed, in a marked diagram.
        public var change: Change?
        /// The property the row shows (nil for the identity rows), for matching across versions.
        var property: PropertyKey?

        /// A row showing no property (or one matched by the caller).
        public init(name: String, type: String, keys: [String] = [], notes: [String] = [], change: Change? = nil) {
            self.name = name
            self.type = type
            self.keys = keys
            self.notes = notes
            self.change = change
        }
    }

    /// How many objects one end of a relationship line stands for, per object at the other end.
    public enum Multiplicity: Hashable, Sendable {
        case zeroOrOne, exactlyOne, zeroOrMore, oneOrMore
    }

    /// One end of a relationship line: the relationship that points *to* this end's entity.
    public struct End: Hashable, Sendable {
        /// The entity at this end.
        public var entity: String
        /// How many of `entity`'s objects the relationship holds per object at the other end.
        public var multiplicity: Multiplicity
        /// `ingredients (cascade)`: the relationship of the other end that points here, with its
        /// delete rule and its counts; nil when it has no relationship this way (no inverse).
        public var label: String?
        var property: PropertyKey?
    }

    /// One relationship, or a pair of inverse relationships.
    public struct Link: Hashable, Sendable {
        /// The entity drawn first, whose relationship names the `right` end.
        public var left: End
        /// The other entity.
        public var right: End
        /// The join table that stores the links, if any.
        public var joinTable: String?
        /// How the relationship changed, in a marked diagram.
        public var change: Change?
    }

    /// A sub-entity and its parent.
    public struct Inheritance: Hashable, Sendable {
        /// The sub-entity.
        public var child: String
        /// Its parent.
        public var parent: String
        /// How the link changed, in a marked diagram.
        public var change: Change?
    }

    /// A property by the entity that declares it, its kind and its name.
    struct PropertyKey: Hashable, Sendable {
        var entity: String
        var isRelationship: Bool
        var name: String
    }
}
