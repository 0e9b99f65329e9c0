/// The options of a key's own sequence: an identity's (`GENERATED … AS IDENTITY (START WITH 100
/// INCREMENT BY 10)`) or a `serial` key's (`<table>_id_seq`). Written in the key's entry of a
/// version file with the names `sequences:` uses: `key: { type: serial, start: 7, increment: 5 }`.
///
/// The options mean what they mean for a sequence of the model (``ModelSequence``): a bound equal
/// to PostgreSQL's default for the key's type and increment is held as nil, so that writing it
/// out means what leaving it out means.
public struct KeySequenceOptions: Hashable, Sendable, Codable {
    /// `START WITH`: the first value a new tenant draws.
    public var start: Int64
    /// `INCREMENT BY`.
    public var increment: Int64
    /// `MINVALUE`, or nil for PostgreSQL's default.
    public var minValue: Int64?
    /// `MAXVALUE`, or nil for PostgreSQL's default.
    public var maxValue: Int64?
    /// `CACHE` (1, the default, takes one value at a time).
    public var cache: Int64
    /// `CYCLE`.
    public var cycle: Bool

    /// Creates options; the defaults are PostgreSQL's.
    public init(start: Int64 = 1, increment: Int64 = 1, minValue: Int64? = nil, maxValue: Int64? = nil, cache: Int64 = 1, cycle: Bool = false) {
        self.start = start
        self.increment = increment
        self.minValue = minValue
        self.maxValue = maxValue
        self.cache = cache
        self.cycle = cycle
    }

    /// The options of `sequence` (its name and type aside).
    public init(_ sequence: ModelSequence) {
        self.init(start: sequence.start, increment: sequence.increment, minValue: sequence.minValue, maxValue: sequence.maxValue,
                  cache: sequence.cache, cycle: sequence.cycle)
    }

    /// The key's sequence as a sequence named `name` of the key's `type`, for its bounds, its
    /// checks and its changes, which are those of ``ModelSequence``.
    public func sequence(named name: String, type: SQLType, location: SourceLocation? = nil) -> ModelSequence {
        ModelSequence(name: name, type: type, start: start, increment: increment, minValue: minValue, maxValue: maxValue,
                      cache: cache, cycle: cycle, location: location)
    }

    /// These options for a key of `type`, with default bounds held as nil; nil where every option
    /// is PostgreSQL's default (a key that says none).
    public func normalized(for type: SQLType) -> KeySequenceOptions? {
        let options = KeySequenceOptions(sequence(named: "", type: type))
        return options == KeySequenceOptions() ? nil : options
    }

    /// `start`, `increment`, then `minValue`, `maxValue`, `cycle` and `cache`, where they are not
    /// the defaults: the keys a version file writes, in its order.
    var writtenKeys: [(key: String, value: String)] {
        var keys: [(key: String, value: String)] = []
        if start != 1 { keys.append(("start", String(start))) }
        if increment != 1 { keys.append(("increment", String(increment))) }
        return keys + optionKeys
    }

    /// `minValue`, `maxValue`, `cycle` and `cache`, where they are not the defaults.
    var optionKeys: [(key: String, value: String)] {
        var keys: [(key: String, value: String)] = []
        if let minValue { keys.append(("minValue", String(minValue))) }
        if let maxValue { keys.append(("maxValue", String(maxValue))) }
        if cycle { keys.append(("cycle", "true")) }
        if cache != 1 { keys.append(("cache", String(cache))) }
        return keys
    }
}
