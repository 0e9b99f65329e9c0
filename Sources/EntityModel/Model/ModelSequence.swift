/// A sequence of a model version that no column owns (`sequences:` in a version file), such as
/// Hibernate's `hibernate_sequence` or a per-entity `product_seq` with `INCREMENT 50`: a key's
/// default draws from it with `nextval('product_seq'::regclass)`, or the application does.
///
/// A new tenant's sequence begins at ``start``; a migration leaves a tenant's sequence, and so its
/// current value, as it is. The sequences a `serial` key owns are not listed here: they come with
/// their table.
public struct ModelSequence: Hashable, Sendable, Codable {
    /// The sequence's name in the tenant's schema.
    public var name: String
    /// Its type: `bigint` (the default), `integer` or `smallint`.
    public var type: SQLType
    /// The first value a new tenant draws.
    public var start: Int64
    /// The step between values (Hibernate's allocation size: 50).
    public var increment: Int64
    /// `MINVALUE`, or nil for PostgreSQL's default (1 ascending, the type's least value descending).
    public var minValue: Int64?
    /// `MAXVALUE`, or nil for PostgreSQL's default (the type's greatest value ascending, -1 descending).
    public var maxValue: Int64?
    /// `CACHE`: how many values a session takes at once (1, the default, takes one).
    public var cache: Int64
    /// `CYCLE`: past its bound it starts again at the other one (off by default).
    public var cycle: Bool
    /// Where the sequence was declared, when it came from a file.
    public var location: SourceLocation?

    /// Creates a sequence. A bound equal to PostgreSQL's default for the type and increment is held as nil.
    public init(
        name: String, type: SQLType = .bigint, start: Int64 = 1, increment: Int64 = 1, minValue: Int64? = nil, maxValue: Int64? = nil,
        cache: Int64 = 1, cycle: Bool = false, location: SourceLocation? = nil
    ) {
        self.name = name
        self.type = type
        self.start = start
        self.increment = increment
        self.minValue = minValue
        self.maxValue = maxValue
        self.cache = cache
        self.cycle = cycle
        self.location = location
        self = normalizingBounds()
    }

    /// The type's range of values.
    var typeRange: ClosedRange<Int64> {
        switch type {
        case .smallint: Int64(Int16.min)...Int64(Int16.max)
        case .integer: Int64(Int32.min)...Int64(Int32.max)
        default: Int64.min...Int64.max
        }
    }

    /// PostgreSQL's `MINVALUE` where none is given.
    var defaultMinValue: Int64 { increment > 0 ? 1 : typeRange.lowerBound }
    /// PostgreSQL's `MAXVALUE` where none is given.
    var defaultMaxValue: Int64 { increment > 0 ? typeRange.upperBound : -1 }
    /// The least value it gives.
    public var lowest: Int64 { minValue ?? defaultMinValue }
    /// The greatest value it gives.
    public var highest: Int64 { maxValue ?? defaultMaxValue }

    /// This sequence with a bound that is PostgreSQL's default held as nil, so that writing the
    /// default out means what leaving it out means (and hashes alike).
    public func normalizingBounds() -> ModelSequence {
        var sequence = self
        if sequence.minValue == defaultMinValue { sequence.minValue = nil }
        if sequence.maxValue == defaultMaxValue { sequence.maxValue = nil }
        return sequence
    }

    /// The keys of its entry in a version file that differ from their defaults.
    var writtenKeys: [(key: String, value: String)] {
        (type != .bigint ? [("type", type.rawValue)] : []) + KeySequenceOptions(self).writtenKeys
    }

    /// `minValue`, `maxValue`, `cycle` and `cache`, where they are not the defaults.
    public var optionKeys: [(key: String, value: String)] {
        KeySequenceOptions(self).optionKeys
    }
}

extension ModelSequence {
    /// Decodes a sequence; one encoded before its options existed has the defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name), type: try container.decode(SQLType.self, forKey: .type),
            start: try container.decode(Int64.self, forKey: .start), increment: try container.decode(Int64.self, forKey: .increment),
            minValue: try container.decodeIfPresent(Int64.self, forKey: .minValue), maxValue: try container.decodeIfPresent(Int64.self, forKey: .maxValue),
            cache: try container.decodeIfPresent(Int64.self, forKey: .cache) ?? 1, cycle: try container.decodeIfPresent(Bool.self, forKey: .cycle) ?? false,
            location: try container.decodeIfPresent(SourceLocation.self, forKey: .location))
    }
}
