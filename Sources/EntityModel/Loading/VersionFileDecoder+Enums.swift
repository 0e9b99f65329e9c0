import Yams

extension VersionFileDecoder {
    /// The keys of an enum written as a mapping.
    static let enumKeys = ["values", "renamed"]

    /// The enum types of `enums:`: each name maps to its values in order (`order_status: [pending, paid]`),
    /// or to a mapping with `values:` and `renamed:` (new value → its name in the previous version).
    static func decodeEnums(_ node: Node, reader: inout YAMLReader) -> [EnumType] {
        let declared = reader.entries(of: node, what: "enums", allowsNull: true) ?? []
        return declared.compactMap { entry in
            let what = "enum \(entry.key)"
            var valuesNode = entry.value
            var renamed: [String: String] = [:]
            if entry.value.mapping != nil {
                let entries = reader.entries(of: entry.value, what: what) ?? []
                reader.checkKeys(entries, allowed: enumKeys, in: what)
                guard let values = reader.value("values", in: entries) else {
                    reader.report(entry.value, "\(what) needs the key values: the list of its values in order.")
                    return nil
                }
                valuesNode = values
                if let renamedNode = reader.value("renamed", in: entries) {
                    for item in reader.entries(of: renamedNode, what: "renamed of \(what)", allowsNull: true) ?? [] {
                        if let old = reader.string(item.value, what: "the old name of value \(item.key) of \(what)") { renamed[item.key] = old }
                    }
                }
            }
            guard let sequence = valuesNode.sequence else {
                reader.report(valuesNode, "the values of \(what) must be a list, such as [pending, paid].")
                return nil
            }
            let values = sequence.compactMap { reader.string($0, what: "a value of \(what)") }
            return EnumType(name: entry.key, values: values, renamedValues: renamed)
        }
    }
}

extension VersionFileDecoder {
    /// The column type of `type: enum(name)`, or nil when `written` is not of that form.
    static func enumType(_ written: String) -> SQLType? {
        guard let match = written.wholeMatch(of: /enum\(\s*([^()\s]+)\s*\)/) else { return nil }
        return .enumeration(String(match.1))
    }
}
