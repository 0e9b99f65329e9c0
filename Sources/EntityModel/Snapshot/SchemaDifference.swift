import Foundation

/// One way a live schema differs from the schema its model version renders to; see
/// ``SchemaSnapshot/differences(from:)``.
///
/// `column` names the column for column kinds, and the comma-separated column list (or index
/// expressions) for key, constraint and index kinds; it is nil for table kinds and checks.
/// `expected` and `actual` hold the compared values as text, nil on the side where the thing is
/// absent:
///
/// | kind | expected / actual |
/// | --- | --- |
/// | `missingColumn`, `extraColumn` | the column's definition: `text NOT NULL DEFAULT 'Other'::text` |
/// | `columnType` | `format_type` text: `smallint`, `integer` |
/// | `columnNullability` | `nullable` or `NOT NULL` |
/// | `columnDefault` | the default expression, nil for none |
/// | `columnIdentity` | `identity`, nil for none |
/// | `identitySequence` | the options of the identity's sequence: `START WITH 100 INCREMENT BY 10` |
/// | `primaryKey` | the key's columns: `(artist_id, track_id)`, nil for none |
/// | foreign-key kinds | `(recipe_id) → recipe ON DELETE CASCADE` (`→ recipe (code)` when not `(id)`) |
/// | unique-constraint kinds | `(name)` |
/// | check kinds | the definition: `CHECK ((entity = ANY (ARRAY['A'::text])))` |
/// | index kinds | `(type)`, `UNIQUE (code)`, `(lower(name)) USING gin WHERE (x > 0)` |
/// | enum kinds (`table` is the type's name) | the values in order: `('pending', 'paid')` |
public struct SchemaDifference: Codable, Equatable, Sendable, CustomStringConvertible {
    /// What differs.
    public enum Kind: String, Codable, Sendable {
        case missingTable, extraTable
        case missingColumn, extraColumn, columnType, columnNullability, columnDefault, columnIdentity
        /// The options of an identity column's sequence (start, increment, bounds, cache, cycle).
        case identitySequence
        case primaryKey
        case missingForeignKey, extraForeignKey, foreignKeyDeleteRule
        case missingUniqueConstraint, extraUniqueConstraint
        case missingCheck, extraCheck
        case missingIndex, extraIndex
        case missingSequence, sequenceSettings
        /// An enum type (its name in ``table``) missing, not in the model, or with other values.
        case missingEnum, extraEnum, enumValues
        /// A table's or a column's comment differs (nil for none).
        case tableComment, columnComment
    }

    /// What differs.
    public var kind: Kind
    /// The table concerned.
    public var table: String
    /// The column, or column list, concerned; see the type's documentation.
    public var column: String?
    /// The value the model renders to, if any.
    public var expected: String?
    /// The value the live schema has, if any.
    public var actual: String?

    /// Creates a difference.
    public init(kind: Kind, table: String, column: String? = nil, expected: String? = nil, actual: String? = nil) {
        self.kind = kind
        self.table = table
        self.column = column
        self.expected = expected
        self.actual = actual
    }

    /// One plain sentence: `table recipe: column servings has type smallint, expected integer`.
    public var description: String {
        let subject = column ?? ""
        let expected = expected ?? "none"
        let actual = actual ?? "none"
        switch kind {
        case .missingTable:
            return "table \(table) is missing"
        case .extraTable:
            return "table \(table) is not in the model"
        case .missingColumn:
            return "table \(table): column \(subject) is missing"
        case .extraColumn:
            return "table \(table): column \(subject) is not in the model"
        case .columnType:
            return "table \(table): column \(subject) has type \(actual), expected \(expected)"
        case .columnNullability:
            return "table \(table): column \(subject) is \(actual), expected \(expected)"
        case .columnDefault:
            let has = self.actual.map { "has default \($0)" } ?? "has no default"
            return "table \(table): column \(subject) \(has), expected \(self.expected ?? "no default")"
        case .columnIdentity:
            if let wanted = self.expected, let found = self.actual {
                return "table \(table): column \(subject) is \(found == "identity" ? "an identity by default" : "an identity always"), expected \(wanted == "identity" ? "by default" : "always")"
            }
            return self.actual == nil
                ? "table \(table): column \(subject) is not an identity column, expected one"
                : "table \(table): column \(subject) is an identity column, expected none"
        case .identitySequence:
            return "table \(table): the identity sequence of column \(subject) is \(actual), expected \(expected)"
        case .primaryKey:
            switch (self.expected, self.actual) {
            case (nil, _): return "table \(table): primary key \(actual) is not in the model"
            case (_, nil): return "table \(table): primary key \(expected) is missing"
            default: return "table \(table): primary key is \(actual), expected \(expected)"
            }
        case .missingForeignKey:
            return "table \(table): foreign key \(expected) is missing"
        case .extraForeignKey:
            return "table \(table): foreign key \(actual) is not in the model"
        case .foreignKeyDeleteRule:
            let (key, actualRule) = Self.splitDeleteRule(actual)
            let (_, expectedRule) = Self.splitDeleteRule(expected)
            return "table \(table): foreign key \(key) deletes with \(actualRule), expected \(expectedRule)"
        case .missingUniqueConstraint:
            return "table \(table): unique constraint on \(expected) is missing"
        case .extraUniqueConstraint:
            return "table \(table): unique constraint on \(actual) is not in the model"
        case .missingCheck:
            return "table \(table): constraint \(expected) is missing"
        case .extraCheck:
            return "table \(table): constraint \(actual) is not in the model"
        case .missingIndex:
            return "table \(table): \(Self.indexPhrase(expected)) is missing"
        case .extraIndex:
            return "table \(table): \(Self.indexPhrase(actual)) is not in the model"
        case .missingSequence:
            return "sequence \(table) is missing (expected \(expected))"
        case .sequenceSettings:
            return "sequence \(table) is \(actual), expected \(expected)"
        case .missingEnum:
            return "enum type \(table) \(expected) is missing"
        case .extraEnum:
            return "enum type \(table) \(actual) is not in the model"
        case .enumValues:
            return "enum type \(table) has the values \(actual), expected \(expected)"
        case .tableComment:
            return "table \(table) has the comment \(actual), expected \(expected)"
        case .columnComment:
            return "table \(table): column \(subject) has the comment \(actual), expected \(expected)"
        }
    }

    /// The separator between a foreign key and its rule in ``expected`` and ``actual``.
    static let deleteRuleSeparator = " ON DELETE "

    /// `(recipe_id) → recipe ON DELETE CASCADE` as `("(recipe_id) → recipe", "CASCADE")`.
    private static func splitDeleteRule(_ text: String) -> (key: String, rule: String) {
        guard let range = text.range(of: deleteRuleSeparator, options: .backwards) else { return (text, text) }
        return (String(text[..<range.lowerBound]), String(text[range.upperBound...]))
    }

    /// `UNIQUE (code)` as `unique index on (code)`, `(type)` as `index on (type)`.
    private static func indexPhrase(_ text: String) -> String {
        text.hasPrefix("UNIQUE ") ? "unique index on " + text.dropFirst("UNIQUE ".count) : "index on " + text
    }
}
