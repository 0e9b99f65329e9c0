/// One enum type of a ``SchemaSnapshot``: its name and its values in sort order (`pg_enum`).
public struct EnumSnapshot: Codable, Equatable, Sendable {
    /// The type's name (unqualified).
    public var name: String
    /// The values, in the order PostgreSQL sorts them.
    public var values: [String]

    /// Creates an enum snapshot.
    public init(name: String, values: [String]) {
        self.name = name
        self.values = values
    }

    /// The values as a difference shows them: `('pending', 'paid')`.
    var valuesText: String {
        "(" + values.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }.joined(separator: ", ") + ")"
    }
}

extension SchemaSnapshot {
    /// The differences of this (live) schema's enum types against `expected`'s: a type missing, extra,
    /// or with other values (or the same in another order).
    func enumDifferences(from expected: SchemaSnapshot) -> [SchemaDifference] {
        let want = Dictionary(expected.enums.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let have = Dictionary(enums.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        return Set(want.keys).union(have.keys).sorted().compactMap { name in
            switch (want[name], have[name]) {
            case let (want?, have?):
                return want.values == have.values ? nil
                    : SchemaDifference(kind: .enumValues, table: name, expected: want.valuesText, actual: have.valuesText)
            case let (want?, nil): return SchemaDifference(kind: .missingEnum, table: name, expected: want.valuesText)
            case let (nil, have?): return SchemaDifference(kind: .extraEnum, table: name, actual: have.valuesText)
            case (nil, nil): return nil
            }
        }
    }
}
