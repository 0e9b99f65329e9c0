extension ModelVersion {
    /// `enums:` with one line a type, `name: [a, b]`, or `name: { values: [a, b], renamed: { b: old } }`
    /// where values were renamed; nothing for a version without enums.
    var enumLines: [String] {
        guard !enums.isEmpty else { return [] }
        return ["enums:"] + enums.map { type in
            let values = "[" + type.values.map(YAMLScalar.name).joined(separator: ", ") + "]"
            guard !type.renamedValues.isEmpty else { return "  \(YAMLScalar.name(type.name)): \(values)" }
            let renamed = type.renamedValues.sorted { $0.key < $1.key }.map { "\(YAMLScalar.name($0.key)): \(YAMLScalar.name($0.value))" }
            return "  \(YAMLScalar.name(type.name)): { values: \(values), renamed: { \(renamed.joined(separator: ", ")) } }"
        }
    }
}
