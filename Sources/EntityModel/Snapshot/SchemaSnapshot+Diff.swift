extension SchemaSnapshot {
    /// Every difference of `self` (the live schema) against `expected`, in a stable order.
    ///
    /// Tables are matched by name, columns by name (their order is ignored), foreign keys by their
    /// column list and target, unique constraints by column list, checks by definition, and indexes
    /// by columns, uniqueness, access method and predicate. Constraint and index names are ignored,
    /// so a renamed constraint is not drift. A missing or extra table is one difference; its contents
    /// are not listed.
    ///
    /// Order: tables by name; within a table, columns by name (presence, then type, nullability,
    /// default, identity), then the primary key, foreign keys, unique constraints, checks and
    /// indexes, each as missing, then changed, then extra.
    public func differences(from expected: SchemaSnapshot) -> [SchemaDifference] {
        var differences: [SchemaDifference] = []
        for (name, expectedTable, actualTable) in joinByName(expected.tables, tables, name: \.name) {
            switch (expectedTable, actualTable) {
            case (let expectedTable?, let actualTable?):
                differences += actualTable.differences(from: expectedTable)
            case (_?, nil):
                differences.append(SchemaDifference(kind: .missingTable, table: name))
            case (nil, _?):
                differences.append(SchemaDifference(kind: .extraTable, table: name))
            case (nil, nil):
                break
            }
        }
        return differences + sequenceDifferences(from: expected) + enumDifferences(from: expected) + commentDifferences(from: expected)
    }
}

extension TableSnapshot {
    /// The differences of this (live) table against `expected`, which has the same name.
    func differences(from expected: TableSnapshot) -> [SchemaDifference] {
        columnDifferences(from: expected) + primaryKeyDifferences(from: expected) + foreignKeyDifferences(from: expected)
            + uniqueConstraintDifferences(from: expected) + checkDifferences(from: expected) + indexDifferences(from: expected)
    }

    private func difference(
        _ kind: SchemaDifference.Kind, column: String? = nil, expected: String? = nil, actual: String? = nil
    ) -> SchemaDifference {
        SchemaDifference(kind: kind, table: name, column: column, expected: expected, actual: actual)
    }

    private func columnDifferences(from expected: TableSnapshot) -> [SchemaDifference] {
        var differences: [SchemaDifference] = []
        for (name, want, have) in joinByName(expected.columns, columns, name: \.name) {
            switch (want, have) {
            case (let want?, let have?):
                if have.type != want.type {
                    differences.append(difference(.columnType, column: name, expected: want.type, actual: have.type))
                }
                if have.isNullable != want.isNullable {
                    differences.append(difference(
                        .columnNullability, column: name, expected: want.nullabilityText, actual: have.nullabilityText
                    ))
                }
                if have.defaultExpression != want.defaultExpression {
                    differences.append(difference(
                        .columnDefault, column: name, expected: want.defaultExpression, actual: have.defaultExpression
                    ))
                }
                if have.isIdentity != want.isIdentity || have.identityGeneration != want.identityGeneration {
                    differences.append(difference(
                        .columnIdentity, column: name, expected: want.identityText, actual: have.identityText
                    ))
                } else if have.identitySequence != want.identitySequence {
                    differences.append(difference(
                        .identitySequence, column: name, expected: want.identitySequenceText, actual: have.identitySequenceText
                    ))
                }
            case (let want?, nil):
                differences.append(difference(.missingColumn, column: name, expected: want.definitionText))
            case (nil, let have?):
                differences.append(difference(.extraColumn, column: name, actual: have.definitionText))
            case (nil, nil):
                break
            }
        }
        return differences
    }

    private func primaryKeyDifferences(from expected: TableSnapshot) -> [SchemaDifference] {
        guard primaryKey != expected.primaryKey else { return [] }
        let columns = (expected.primaryKey ?? primaryKey ?? []).joined(separator: ", ")
        return [difference(
            .primaryKey, column: columns,
            expected: expected.primaryKey.map(Self.columnList), actual: primaryKey.map(Self.columnList)
        )]
    }

    /// The `ON DELETE` of `expected` as `actual` may have it: `SET NULL` for `NO ACTION` where every
    /// column of the key is NOT NULL, as tenants made before a required to-one's rule was NO ACTION
    /// have it (both refuse the deletion while rows refer to it; SET NULL fails with 23502).
    private func deleteRuleMeant(_ expected: ForeignKeySnapshot, by actual: ForeignKeySnapshot) -> String {
        guard expected.onDelete == "NO ACTION", actual.onDelete == "SET NULL",
              actual.columns.allSatisfy({ column(named: $0)?.isNullable == false }) else { return expected.onDelete }
        return actual.onDelete
    }

    private func foreignKeyDifferences(from expected: TableSnapshot) -> [SchemaDifference] {
        let paired = pairUp(expected.foreignKeys, foreignKeys) { [$0.columns, [$0.referencedTable], $0.referencedColumns] }
        return paired.missing.map { difference(.missingForeignKey, column: $0.columnsText, expected: $0.text) }
            + paired.matched.filter {
                (deleteRuleMeant($0.expected, by: $0.actual), $0.expected.onUpdate, $0.expected.deferral) != ($0.actual.onDelete, $0.actual.onUpdate, $0.actual.deferral)
            }.map {
                difference(.foreignKeyDeleteRule, column: $0.actual.columnsText, expected: $0.expected.text, actual: $0.actual.text)
            }
            + paired.extra.map { difference(.extraForeignKey, column: $0.columnsText, actual: $0.text) }
    }

    private func uniqueConstraintDifferences(from expected: TableSnapshot) -> [SchemaDifference] {
        let paired = pairUp(expected.uniqueConstraints, uniqueConstraints) { $0 }
        return paired.missing.map {
            difference(.missingUniqueConstraint, column: $0.joined(separator: ", "), expected: Self.columnList($0))
        } + paired.extra.map {
            difference(.extraUniqueConstraint, column: $0.joined(separator: ", "), actual: Self.columnList($0))
        }
    }

    private func checkDifferences(from expected: TableSnapshot) -> [SchemaDifference] {
        let paired = pairUp(expected.checks, checks) { $0 }
        return paired.missing.map { difference(.missingCheck, expected: $0) }
            + paired.extra.map { difference(.extraCheck, actual: $0) }
    }

    private func indexDifferences(from expected: TableSnapshot) -> [SchemaDifference] {
        let paired = pairUp(expected.indexes, indexes) { $0.matchKey }
        return paired.missing.map { difference(.missingIndex, column: $0.columnsText, expected: $0.text) }
            + paired.extra.map { difference(.extraIndex, column: $0.columnsText, actual: $0.text) }
    }

    /// `(a, b)`.
    static func columnList(_ columns: [String]) -> String {
        "(" + columns.joined(separator: ", ") + ")"
    }
}

/// Every name in `expected` or `actual`, sorted, with the item of that name on each side (the
/// first, should a name repeat).
private func joinByName<Item>(
    _ expected: [Item], _ actual: [Item], name: (Item) -> String
) -> [(name: String, expected: Item?, actual: Item?)] {
    let expectedByName = Dictionary(expected.map { (name($0), $0) }, uniquingKeysWith: { first, _ in first })
    let actualByName = Dictionary(actual.map { (name($0), $0) }, uniquingKeysWith: { first, _ in first })
    return Set(expectedByName.keys).union(actualByName.keys).sorted().map { ($0, expectedByName[$0], actualByName[$0]) }
}

/// Pairs each item of `expected` with an unused item of `actual` that has the same key (as
/// multisets: two identical actual items match two expected ones, not one). The unpaired items of
/// `expected` are missing, those of `actual` extra. Input order is kept.
private func pairUp<Item, Key: Hashable>(
    _ expected: [Item], _ actual: [Item], by key: (Item) -> Key
) -> (matched: [(expected: Item, actual: Item)], missing: [Item], extra: [Item]) {
    var available: [Key: [Int]] = [:]
    for (index, item) in actual.enumerated() { available[key(item), default: []].append(index) }
    var matched: [(expected: Item, actual: Item)] = []
    var missing: [Item] = []
    var used = Set<Int>()
    for item in expected {
        let itemKey = key(item)
        if let index = available[itemKey]?.first {
            available[itemKey]?.removeFirst()
            used.insert(index)
            matched.append((item, actual[index]))
        } else {
            missing.append(item)
        }
    }
    let extra = actual.indices.filter { !used.contains($0) }.map { actual[$0] }
    return (matched, missing, extra)
}

extension ColumnSnapshot {
    var nullabilityText: String { isNullable ? "nullable" : "NOT NULL" }
    var identityText: String? { isIdentity ? (identityGeneration == "ALWAYS" ? "identity always" : "identity") : nil }
    /// ``identitySequence``, or the defaults' text where it has none.
    var identitySequenceText: String { identitySequence ?? "START WITH 1 INCREMENT BY 1" }

    /// `text NOT NULL DEFAULT 'Other'::text`, `bigint NOT NULL GENERATED AS IDENTITY`.
    var definitionText: String {
        var text = type
        if !isNullable { text += " NOT NULL" }
        if let defaultExpression { text += " DEFAULT " + defaultExpression }
        if isIdentity { text += identityGeneration == "ALWAYS" ? " GENERATED ALWAYS AS IDENTITY" : " GENERATED AS IDENTITY" }
        if let identitySequence { text += " (\(identitySequence))" }
        return text
    }
}

extension ForeignKeySnapshot {
    var columnsText: String { columns.joined(separator: ", ") }

    /// `(recipe_id) → recipe ON DELETE CASCADE`; the referenced columns are written only when they
    /// are not `(id)`.
    var text: String {
        var target = referencedTable
        if referencedColumns != [SQLName.primaryKeyColumn] { target += " " + TableSnapshot.columnList(referencedColumns) }
        return TableSnapshot.columnList(columns) + " → " + target + SchemaDifference.deleteRuleSeparator + onDelete
            + (onUpdate.map { " ON UPDATE " + $0 } ?? "") + (deferral.map { " " + $0 } ?? "")
    }
}

extension IndexSnapshot {
    /// What identifies an index when comparing: everything but its name (and `isPrimary`, which
    /// constraint-backed indexes, the only primary ones, never reach).
    struct MatchKey: Hashable {
        var columns: [String]
        var isUnique: Bool
        var method: String
        var predicate: String?
    }

    var matchKey: MatchKey { MatchKey(columns: columns, isUnique: isUnique, method: method, predicate: predicate) }

    var columnsText: String { columns.joined(separator: ", ") }

    /// `(type)`, `UNIQUE (code)`, `(lower(name)) USING gin WHERE (x > 0)`; `btree` is not written.
    var text: String {
        var text = (isUnique ? "UNIQUE " : "") + TableSnapshot.columnList(columns)
        if method != "btree" { text += " USING " + method }
        if let predicate { text += " WHERE " + predicate }
        return text
    }
}

/// A table whose columns are in another order than the model's (`verify --strict`): the columns it
/// shares with the model, in the model's order and in the live table's. (``SchemaSnapshot`` holds
/// columns by name, so ``SchemaSnapshot/differences(from:)`` never reports an order.)
public struct ColumnOrderDifference: Codable, Equatable, Sendable, CustomStringConvertible {
    public var table: String
    public var expected: [String]
    public var actual: [String]

    public init(table: String, expected: [String], actual: [String]) {
        self.table = table
        self.expected = expected
        self.actual = actual
    }

    /// `table recipe: columns in order id, name, type, servings, expected id, name, servings, type`.
    public var description: String {
        "table \(table): columns in order \(actual.joined(separator: ", ")), expected \(expected.joined(separator: ", "))"
    }
}
