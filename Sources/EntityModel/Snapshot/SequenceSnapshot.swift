/// One sequence of a ``SchemaSnapshot`` that no identity column owns: a `serial` column's (with
/// ``ownedBy``) or one standing alone (Hibernate's `hibernate_sequence`). Its current value is not
/// recorded: it belongs to the tenant's rows, not to the schema's shape.
public struct SequenceSnapshot: Codable, Equatable, Sendable {
    /// The sequence's name.
    public var name: String
    /// Its type as `format_type` prints it: `bigint`, `integer`, `smallint`.
    public var type: String
    /// `START WITH`.
    public var start: Int64
    /// `INCREMENT BY`.
    public var increment: Int64
    /// `MINVALUE`, `MAXVALUE` and `CACHE`, and whether it cycles, as one text for comparison
    /// (`1 9223372036854775807 1 NO CYCLE`); nil where they are the defaults for its type and increment.
    public var limits: String?
    /// The column that owns it (`order.id`), or nil.
    public var ownedBy: String?

    /// Creates a sequence snapshot.
    public init(name: String, type: String, start: Int64 = 1, increment: Int64 = 1, limits: String? = nil, ownedBy: String? = nil) {
        self.name = name
        self.type = type
        self.start = start
        self.increment = increment
        self.limits = limits
        self.ownedBy = ownedBy
    }

    /// ``limits`` read back: nil bounds where it has none (the defaults), nil as a whole where the
    /// text is not one ``limits`` writes.
    public var options: (minValue: Int64?, maxValue: Int64?, cache: Int64, cycle: Bool)? {
        guard let limits else { return (nil, nil, 1, false) }
        let words = limits.split(separator: " ")
        guard words.count >= 6, words[0] == "MINVALUE", words[2] == "MAXVALUE", words[4] == "CACHE",
              let minimum = Int64(words[1]), let maximum = Int64(words[3]), let cache = Int64(words[5]),
              words.count == 6 || (words.count == 7 && words[6] == "CYCLE") else { return nil }
        return (minimum, maximum, cache, words.count == 7)
    }

    /// `bigint START WITH 1 INCREMENT BY 50 OWNED BY order.id`.
    public var definitionText: String {
        "\(type) START WITH \(start) INCREMENT BY \(increment)" + (limits.map { " " + $0 } ?? "") + (ownedBy.map { " OWNED BY " + $0 } ?? "")
    }
}

extension SchemaSnapshot {
    /// The differences of the live sequences against the ones `expected` has: a missing one, or one
    /// with other settings. A sequence the model does not have is left to `verify`'s list of
    /// foreign objects, as before sequences were part of the model.
    func sequenceDifferences(from expected: SchemaSnapshot) -> [SchemaDifference] {
        expected.sequences.compactMap { want in
            guard let have = sequences.first(where: { $0.name == want.name }) else {
                return SchemaDifference(kind: .missingSequence, table: want.name, expected: want.definitionText)
            }
            return have == want ? nil : SchemaDifference(kind: .sequenceSettings, table: want.name, expected: want.definitionText, actual: have.definitionText)
        }
    }
}

extension SequenceSnapshot {
    /// Its start, increment and ``options`` as the model's options, or nil where ``limits`` is
    /// not a text it writes.
    public var keySequenceOptions: KeySequenceOptions? {
        options.map { KeySequenceOptions(start: start, increment: increment, minValue: $0.minValue, maxValue: $0.maxValue, cache: $0.cache, cycle: $0.cycle) }
    }
}

extension ColumnSnapshot {
    /// The options of the identity's sequence (``identitySequence`` read back): the defaults
    /// where it has none, nil where the text is not one the snapshot writes.
    public var identitySequenceOptions: KeySequenceOptions? {
        guard let identitySequence else { return KeySequenceOptions() }
        let words = identitySequence.split(separator: " ")
        guard words.count >= 6, words[0] == "START", words[1] == "WITH", words[3] == "INCREMENT", words[4] == "BY",
              let start = Int64(words[2]), let increment = Int64(words[5]) else { return nil }
        let limits = words.count > 6 ? words[6...].joined(separator: " ") : nil
        return SequenceSnapshot(name: "", type: type, start: start, increment: increment, limits: limits).keySequenceOptions
    }
}
