import EntityModel
import TypedSQL

/// The data-flow account of one step: for every source column, link storage and row set the step
/// reads, where its values go. A value counts as kept only when the account shows where it goes;
/// whatever the account calls destroyed is in ``MigrationStep/destructiveChanges`` and needs
/// consent (`--allow-destructive`).
///
/// Tables and columns are named as in the **source** version's schema, relative to the tenant's
/// schema; row sets are SQL predicates over the source row (alias `source`), evaluated while the
/// step's mappings run (after its renames, before its drops). See docs/Migrations.md, "The account".
public struct StepAccount: Sendable, Hashable, Codable {
    public var entries: [Entry]
    /// Where the step's source tables and columns are while it runs and once it ran, for the
    /// archive (nil for an account made by hand).
    public var names: ArchiveNames?

    public init(entries: [Entry] = [], names: ArchiveNames? = nil) {
        self.entries = entries
        self.names = names
    }

    /// One source item and its fate.
    public struct Entry: Sendable, Hashable, Codable, CustomStringConvertible {
        public var item: Item
        public var fate: Fate
        /// Set on a ``Fate/transformed(by:)`` entry whose expression or policy writes over the
        /// source values in place (the column stays): the old values are archived, and are lost
        /// without the archive.
        public var overwritesInPlace: Bool?
        /// Set on a ``Fate/transformed(by:)`` entry whose inferred way back gives every value back
        /// exactly (links or rows moved to their new storage and back): the archive need not keep
        /// them. Any other transformed value the step drops is archived.
        public var reversible: Bool?
        /// Destination columns (in the source row's own row, after the step) that a mapping derives
        /// from this source column: compare-and-restore checks them before it gives back a value
        /// the step dropped, so a change the app made to what was derived wins.
        public var derived: [Location]?
        /// Set on a ``Fate/transformed(by:)`` or ``Fate/carried(to:)`` entry of a column the step
        /// drops, when the step's way back (this mapping model file, for the reverse pair) writes
        /// the column with an expression: the step checks, row by row and set-based, what that
        /// expression will derive, and archives only the rows where it would not give the value
        /// back exactly. See docs/Archive.md, "Proof by the way back".
        public var wayBack: String?
        /// Set on a ``Fate/transformed(by:)`` entry that overwrites a column in place when the
        /// step's way back carries the column back as it is: the archive keeps only the values the
        /// step changed (see docs/Archive.md, "Only what an overwrite changes").
        public var changedOnly: Bool?
        /// Set on a ``Fate/carried(to:)`` entry of a column the step's way back (the pair crossed
        /// the other way) overwrites in place: the step archives the column, so that crossing back
        /// gives back the values this version had rather than rewrite them (see docs/Archive.md,
        /// "Values the way back would rewrite").
        public var overwrittenByWayBack: Bool?

        public init(_ item: Item, _ fate: Fate, overwritesInPlace: Bool? = nil, reversible: Bool? = nil, derived: [Location]? = nil, wayBack: String? = nil) {
            self.item = item
            self.fate = fate
            self.overwritesInPlace = overwritesInPlace
            self.reversible = reversible
            self.derived = derived
            self.wayBack = wayBack
        }

        public var description: String { "\(item): \(fate)" }
    }

    /// What the source had: a column's values, a table's links, or a set of rows.
    public struct Item: Sendable, Hashable, Codable, CustomStringConvertible {
        public enum Kind: String, Sendable, Codable {
            /// The values of one column (an attribute, or a to-one's foreign key).
            case column
            /// The links of a join table.
            case links
            /// Rows as a whole (of a removed entity, or of a dropped table).
            case rows
        }

        public var kind: Kind
        /// The source table (source version's name).
        public var table: String
        /// The source column (source version's name), for ``Kind/column``.
        public var column: String?
        /// The model element, such as `Attachment.image`, for messages.
        public var property: String?
        /// Which rows: nil for all of them.
        public var rows: RowSet?

        public init(kind: Kind, table: String, column: String? = nil, property: String? = nil, rows: RowSet? = nil) {
            self.kind = kind
            self.table = table
            self.column = column
            self.property = property
            self.rows = rows
        }

        public var description: String {
            let what = column.map { "\(table).\($0)" } ?? table
            return "\(kind.rawValue) \(what)\(property.map { " (\($0))" } ?? "")\(rows.map { " \($0.clause)" } ?? "")"
        }

        /// The same item, restricted to `rows`.
        func restricted(to rows: RowSet?) -> Item {
            var copy = self
            copy.rows = RowSet.both(self.rows, rows)
            return copy
        }
    }

    /// A set of rows of the item's table, as an SQL predicate over the source row `source`, typed
    /// (``sql``) until it is rendered: for a tenant where it runs, or as the account's text
    /// (``predicate``, `{schema}` standing for the tenant's quoted schema) in plans and JSON. Where
    /// the account knows them in model terms, ``words`` says which rows they are; the sentences print
    /// those, never the SQL.
    public struct RowSet: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The predicate, the tenant's schema as ``SQL/schema``.
        public let sql: SQL
        /// The rows in model terms (`the Status rows an Issue links to through Issue.status`), if known.
        public var words: String?

        /// The rows `sql` selects (``SQL/schema`` for the tenant's schema).
        init(_ sql: SQL, words: String? = nil) {
            self.sql = sql
            self.words = words
        }

        /// The rows the account's text `predicate` selects (`{schema}` for the tenant's schema): a
        /// predicate read back from a plan's JSON. Text cannot tell the placeholder from the same
        /// characters inside a literal or a name (an enum value `{schema}`), which read as the schema
        /// too, so the engine never runs a predicate read back: its own stay typed (``sql``).
        public init(_ predicate: String, words: String? = nil) {
            let parts = predicate.components(separatedBy: PlaceholderQuoting.schema)
            let sql = parts.dropFirst().reduce(SQL(fragments: parts[0].isEmpty ? [] : [.text(parts[0])])) { sql, part in
                sql + SQL.schema + SQL(stringLiteral: part)
            }
            self.init(sql, words: words)
        }

        /// The predicate as the account's text: `{schema}` for the tenant's schema.
        public var predicate: String { PlaceholderQuoting.text(sql) }

        private enum CodingKeys: String, CodingKey { case predicate, words }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(try container.decode(String.self, forKey: .predicate), words: try container.decodeIfPresent(String.self, forKey: .words))
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(predicate, forKey: .predicate)
            try container.encodeIfPresent(words, forKey: .words)
        }

        /// Equal when they render the same: a set read back from JSON equals the one written.
        public static func == (lhs: RowSet, rhs: RowSet) -> Bool {
            (lhs.predicate, lhs.words) == (rhs.predicate, rhs.words)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(predicate)
            hasher.combine(words)
        }

        /// The rows in words, else the predicate.
        public var description: String { words ?? predicate }

        /// `in <words>` (`in the rows where it holds a value`), or `where <predicate>`.
        public var clause: String { words.map { "in \($0)" } ?? "where \(predicate)" }

        static func both(_ a: RowSet?, _ b: RowSet?) -> RowSet? {
            switch (a, b) {
            case (nil, nil): return nil
            case let (x?, nil), let (nil, x?): return x
            case let (x?, y?):
                let words = x.words.flatMap { a in y.words.map { b in "\(a), and of those \(b)" } }
                return RowSet("(\(x.sql)) AND (\(y.sql))" as SQL, words: words)
            }
        }
    }

    /// Where the values go.
    public enum Fate: Sendable, Hashable, Codable, CustomStringConvertible {
        /// Kept as they are, in this destination table and column (destination names).
        case carried(to: Location)
        /// Read by a rule, expression, mapping or policy that writes what it computes (`by` names it).
        case transformed(by: String)
        /// Not kept. The change says why, and is what the plan lists.
        case destroyed(DestructiveChange)

        public var description: String {
            switch self {
            case let .carried(location): return "carried to \(location)"
            case let .transformed(by): return "transformed by \(by)"
            case let .destroyed(change): return "destroyed: \(change.detail)"
            }
        }
    }

    /// A destination table and column.
    public struct Location: Sendable, Hashable, Codable, CustomStringConvertible {
        public var table: String
        public var column: String?

        public init(table: String, column: String? = nil) {
            self.table = table
            self.column = column
        }

        public var description: String { column.map { "\(table).\($0)" } ?? table }
    }

    /// The entries whose values are destroyed.
    public var destroyed: [Entry] { entries.filter { if case .destroyed = $0.fate { return true } else { return false } } }

    /// What the plan lists as needing consent: the destroyed entries' changes that do not depend
    /// on the data, without repeats.
    public var destructiveChanges: [DestructiveChange] { changes { !$0.dependsOnData } }

    /// Destroyed values that depend on the tenant's data (a row predicate): the step counts them
    /// when it runs and needs consent only if there are any.
    public var dataDependentLosses: [DestructiveChange] { changes(\.dependsOnData) }

    private func changes(_ include: (DestructiveChange) -> Bool) -> [DestructiveChange] {
        var seen: Set<DestructiveChange> = []
        return destroyed.compactMap { entry in
            guard case let .destroyed(change) = entry.fate, include(change), seen.insert(change).inserted else { return nil }
            return change
        }
    }

    /// The entries about one source table (and column).
    public func entries(table: String, column: String? = nil) -> [Entry] {
        entries.filter { $0.item.table == table && (column == nil || $0.item.column == column) }
    }

    mutating func append(_ item: Item, _ fate: Fate, overwritesInPlace: Bool? = nil, reversible: Bool? = nil) {
        entries.append(Entry(item, fate, overwritesInPlace: overwritesInPlace, reversible: reversible))
    }
}
