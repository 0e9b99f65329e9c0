extension ModelVersion {
    /// The version as a version file (`docs/ModelFormat.md`): entities by name, each attribute and
    /// relationship on one line in flow style, only the keys that differ from their defaults.
    /// Loading the text gives an equal version (``ModelVersion/init(name:yaml:file:)``).
    ///
    /// - Parameter header: Lines written first as `#` comments (where the version came from, what
    ///   it could not say); a line feed starts a new comment line, and every other control
    ///   character is escaped (``VisibleText``), so that no text in them can end a comment.
    public func yamlText(header: [String] = []) -> String {
        var lines = VisibleText.yamlComments(header)
        lines += enumLines
        lines.append("entities:")
        for entity in entities {
            let keys = entity.yamlKeys
            if keys.isEmpty && entity.attributes.isEmpty && entity.relationships.isEmpty && entity.checks.isEmpty && entity.uniques.isEmpty && entity.indexes.isEmpty {
                lines.append("  \(YAMLScalar.name(entity.name)): {}")
                continue
            }
            lines.append("  \(YAMLScalar.name(entity.name)):")
            lines += keys.map { "    \($0.key): \($0.value)" }
            if !entity.attributes.isEmpty {
                lines.append("    attributes:")
                lines += entity.attributes.map { "      \(YAMLScalar.name($0.name)): { \(flow($0.yamlKeys)) }" }
            }
            if !entity.relationships.isEmpty {
                lines.append("    relationships:")
                lines += entity.relationships.map { "      \(YAMLScalar.name($0.name)): { \(flow($0.yamlKeys)) }" }
            }
            if !entity.uniques.isEmpty {
                lines.append("    uniques:")
                lines += entity.uniques.map { "      - [\($0.map(YAMLScalar.name).joined(separator: ", "))]" }
            }
            if !entity.indexes.isEmpty {
                lines.append("    indexes:")
                lines += entity.indexes.map { index in
                    var keys: [(key: String, value: String)] = [("on", "[" + index.keys.map(YAMLScalar.versionName).joined(separator: ", ") + "]")]
                    if index.isUnique { keys.append(("unique", "true")) }
                    if let method = index.method { keys.append(("using", YAMLScalar.name(method))) }
                    if let predicate = index.predicate { keys.append(("where", YAMLScalar.quoted(predicate))) }
                    return "      - { \(flow(keys)) }"
                }
            }
            if !entity.checks.isEmpty {
                lines.append("    checks:")
                lines += entity.checks.map { "      - \(YAMLScalar.quoted($0))" }
            }
        }
        if !sequences.isEmpty {
            lines.append("sequences:")
            lines += sequences.map { "  \(YAMLScalar.name($0.name)): " + ($0.writtenKeys.isEmpty ? "{}" : "{ \(flow($0.writtenKeys)) }") }
        }
        if !foreignObjects.isEmpty {
            lines.append("foreignObjects:")
            lines += foreignObjects.map { "  - " + YAMLScalar.quoted($0) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func flow(_ keys: [(key: String, value: String)]) -> String {
        keys.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
    }
}

extension ModelFamily {
    /// The family's manifest (`family.yaml`): its name and its versions, oldest first.
    ///
    /// - Parameter header: Lines written first as `#` comments, escaped as the version file's are.
    public func manifestText(header: [String] = []) -> String {
        VisibleText.yamlComments(header).map { $0 + "\n" }.joined()
            + "family: \(YAMLScalar.name(name))\n"
            + "versions: [\(versions.map { YAMLScalar.versionName($0.name) }.joined(separator: ", "))]   # oldest first\n"
    }
}

private extension Entity {
    /// The entity's own keys that differ from their defaults, in the order the format lists them.
    var yamlKeys: [(key: String, value: String)] {
        var keys: [(key: String, value: String)] = []
        if let parent { keys.append(("parent", YAMLScalar.name(parent))) }
        if isAbstract { keys.append(("abstract", "true")) }
        if let tableOverride { keys.append(("table", YAMLScalar.name(tableOverride))) }
        if let renamingIdentifier { keys.append(("renamingIdentifier", YAMLScalar.name(renamingIdentifier))) }
        if let key { keys.append(("key", key.yamlText)) }
        if let comment { keys.append(("comment", YAMLScalar.quoted(comment))) }
        return keys
    }
}

private extension Attribute {
    var yamlKeys: [(key: String, value: String)] {
        var keys: [(key: String, value: String)] = [("type", columnType == nil ? type.rawValue : YAMLScalar.versionName(typeName))]
        if isOptional { keys.append(("optional", "true")) }
        if case .expression? = defaultValue {
            keys.append(("defaultExpression", defaultValue!.yamlText))
        } else if let defaultValue {
            keys.append(("default", defaultValue.yamlText))
        }
        if isUnique { keys.append(("unique", "true")) }
        if isIndexed { keys.append(("indexed", "true")) }
        if let columnOverride { keys.append(("column", YAMLScalar.name(columnOverride))) }
        if let renamingIdentifier { keys.append(("renamingIdentifier", YAMLScalar.name(renamingIdentifier))) }
        if allowsNarrowing { keys.append(("allowsNarrowing", "true")) }
        if let check { keys.append(("check", YAMLScalar.quoted(check))) }
        if let comment { keys.append(("comment", YAMLScalar.quoted(comment))) }
        return keys
    }
}

private extension Relationship {
    var yamlKeys: [(key: String, value: String)] {
        var keys: [(key: String, value: String)] = [("destination", YAMLScalar.name(destination))]
        if isToMany { keys.append(("toMany", "true")) }
        if let inverse { keys.append(("inverse", YAMLScalar.name(inverse))) }
        if deleteRule != .nullify { keys.append(("deleteRule", deleteRule.rawValue)) }
        if !isOptional { keys.append(("optional", "false")) }
        if let minCount { keys.append(("minCount", String(minCount))) }
        if let maxCount { keys.append(("maxCount", String(maxCount))) }
        if let columnOverride { keys.append(("column", YAMLScalar.name(columnOverride))) }
        if let renamingIdentifier { keys.append(("renamingIdentifier", YAMLScalar.name(renamingIdentifier))) }
        if let onUpdate { keys.append(("onUpdate", onUpdate.rawValue)) }
        if isDeferred { keys.append(("deferred", "true")) }
        if !isIndexed { keys.append(("indexed", "false")) }
        if let joinOnDelete { keys.append(("joinOnDelete", joinOnDelete.rawValue)) }
        if let joinTableOverride { keys.append(("joinTable", YAMLScalar.name(joinTableOverride))) }
        if let joinColumnsOverride { keys.append(("joinColumns", "[" + joinColumnsOverride.map { YAMLScalar.name($0) }.joined(separator: ", ") + "]")) }
        if let joinKey { keys.append(("joinKey", joinKey.rawValue)) }
        if let joinOnUpdate { keys.append(("joinOnUpdate", joinOnUpdate.rawValue)) }
        return keys
    }
}
