import Yams

/// `key:` of an entity and the version's `sequences:` (docs/ModelFormat.md, "Keys and sequences").
extension VersionFileDecoder {
    /// The keys of a `key:` mapping.
    static let keyKeys = ["type", "identity", "defaultExpression"] + sequenceOptionKeys
    /// The options of a sequence, a key's own included.
    static let sequenceOptionKeys = ["start", "increment", "minValue", "maxValue", "cycle", "cache"]
    /// The keys of a sequence.
    static let sequenceKeys = ["type", "start", "increment", "minValue", "maxValue", "cycle", "cache"]

    /// `key: [properties]` or `key: { type:, identity:, defaultExpression: }`, with the options of
    /// its own sequence where it is an identity or `serial` (`start:`, `increment:`, …).
    mutating func decodeKey(_ node: Node, of what: String) -> EntityKey? {
        if let items = node.sequence {
            let names = items.compactMap { reader.string($0, what: "a property of the key of \(what)") }
            guard !names.isEmpty else {
                reader.report(node, "the key of \(what) names no property; list its properties ([code]) or give its type ({ type: uuid }).")
                return nil
            }
            return .properties(names)
        }
        guard let entries = reader.entries(of: node, what: "key of \(what)") else { return nil }
        reader.checkKeys(entries, allowed: Self.keyKeys, in: "key of \(what)")
        guard let typeNode = reader.value("type", in: entries), let typeName = reader.string(typeNode, what: "type of the key of \(what)") else {
            reader.report(node, "the key of \(what) has no type; give one: bigserial, serial, integer, bigint, uuid, ….")
            return nil
        }
        var key: SurrogateKey
        switch typeName {
        case "bigserial", "serial8": key = SurrogateKey(type: .bigint, generation: .serial)
        case "serial", "serial4": key = SurrogateKey(type: .integer, generation: .serial)
        case "smallserial", "serial2": key = SurrogateKey(type: .smallint, generation: .serial)
        default:
            let type = AttributeType(rawValue: typeName)?.sqlType ?? PostgreSQLTypeName.parse(typeName)
            guard let type else {
                reader.report(typeNode, "the key of \(what) has unknown type \"\(typeName)\"; the types are: bigserial, serial, smallserial, \(Self.typesSpelledOut).")
                return nil
            }
            key = SurrogateKey(type: type)
        }
        for item in entries {
            switch item.key {
            case "identity":
                guard let text = reader.string(item.value, what: "identity of the key of \(what)") else { continue }
                guard let generation = SurrogateKey.Generation(rawValue: text), generation != .serial else {
                    reader.report(item.value, "the identity of the key of \(what) is always or byDefault, not \"\(text)\".")
                    continue
                }
                if key.generation == .serial {
                    reader.report(item.value, "the key of \(what) is serial; it cannot be an identity as well.")
                } else if !SurrogateKey.integerTypes.contains(key.type) {
                    reader.report(item.value, "the key of \(what) is an identity, so its type is smallint, integer or bigint, not \(key.type).")
                } else {
                    key.generation = generation
                }
            case "defaultExpression":
                guard let expression = reader.string(item.value, what: "defaultExpression of the key of \(what)") else { continue }
                if key.generation != nil || reader.value("identity", in: entries) != nil {
                    reader.report(item.value, "the key of \(what) is generated (serial or identity); it takes no defaultExpression.")
                } else if expression.allSatisfy(\.isWhitespace) || expression.contains(where: \.isNewline) {
                    reader.report(item.value, "the defaultExpression of the key of \(what) must be one line of SQL, such as gen_random_uuid().")
                } else {
                    key.defaultExpression = expression
                }
            default: break
            }
        }
        key.sequenceOptions = decodeKeySequenceOptions(entries, of: what, key: key)
        return key == .standard ? nil : .id(key)
    }

    /// The options of the key's own sequence, nil where it gives none (or only the defaults);
    /// options on a key that has no sequence of its own are reported.
    private mutating func decodeKeySequenceOptions(_ entries: [YAMLReader.Entry], of what: String, key: SurrogateKey) -> KeySequenceOptions? {
        let given = entries.filter { Self.sequenceOptionKeys.contains($0.key) }
        guard let first = given.first else { return nil }
        guard key.ownsSequence else {
            reader.report(first.value, "the key of \(what) has no sequence of its own, so it takes no \(first.key); "
                + "the options of a sequence are for an identity or serial key (or a sequence under sequences:).")
            return nil
        }
        var sequence = ModelSequence(name: "", type: key.type)
        for item in given { decodeSequenceOption(item, of: "the key of \(what)", into: &sequence) }
        return KeySequenceOptions(sequence.normalizingBounds()).normalized(for: key.type)
    }

    /// `sequences: { name: { type:, start:, increment:, minValue:, maxValue:, cycle:, cache: } }`.
    mutating func decodeSequences(_ node: Node) -> [ModelSequence] {
        let declared = reader.entries(of: node, what: "sequences", allowsNull: true) ?? []
        return declared.compactMap { entry in
            let what = "sequence \(entry.key)"
            guard let entries = reader.entries(of: entry.value, what: what, allowsNull: true) else { return nil }
            reader.checkKeys(entries, allowed: Self.sequenceKeys, in: what)
            var sequence = ModelSequence(name: entry.key, location: reader.location(of: entry.keyNode))
            for item in entries {
                switch item.key {
                case "type":
                    guard let name = reader.string(item.value, what: "type of \(what)") else { continue }
                    let type = AttributeType(rawValue: name)?.sqlType ?? PostgreSQLTypeName.parse(name)
                    if let type, SurrogateKey.integerTypes.contains(type) {
                        sequence.type = type
                    } else {
                        reader.report(item.value, "the type of \(what) is smallint, integer or bigint, not \"\(name)\".")
                    }
                default: decodeSequenceOption(item, of: what, into: &sequence)
                }
            }
            return sequence.normalizingBounds()
        }
    }

    /// One of `start`, `increment`, `minValue`, `maxValue`, `cache` and `cycle` of `what` (a
    /// sequence, or a key's own), into `sequence`; a value that is not one is reported where it is.
    private mutating func decodeSequenceOption(_ item: YAMLReader.Entry, of what: String, into sequence: inout ModelSequence) {
        switch item.key {
        case "start": sequence.start = int64(item.value, what: "start of \(what)") ?? 1
        case "increment":
            let increment = int64(item.value, what: "increment of \(what)") ?? 1
            if increment == 0 { reader.report(item.value, "the increment of \(what) must not be zero.") }
            sequence.increment = increment == 0 ? 1 : increment
        case "minValue": sequence.minValue = int64(item.value, what: "minValue of \(what)")
        case "maxValue": sequence.maxValue = int64(item.value, what: "maxValue of \(what)")
        case "cache": sequence.cache = int64(item.value, what: "cache of \(what)") ?? 1
        case "cycle": sequence.cycle = reader.bool(item.value, what: "cycle of \(what)") ?? false
        default: break
        }
    }

    private mutating func int64(_ node: Node, what: String) -> Int64? {
        guard let text = node.scalar?.string, let value = Int64(text) else {
            reader.report(node, "\(what) must be a whole number.")
            return nil
        }
        return value
    }
}
