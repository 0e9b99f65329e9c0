/// Checks the enum types of a version and the attributes that use them: names PostgreSQL can take,
/// values that are distinct and not empty, renamings that name a value, and every `type: enum(name)`
/// naming a declared enum, with a default among its values.
struct EnumValidator {
    let enums: [EnumType]
    let entities: [Entity]
    let file: String

    /// PostgreSQL's longest name, in bytes.
    private static let maximumNameBytes = 63

    func validate() -> [ModelDiagnostic] {
        var messages: [String] = []
        var seen: Set<String> = []
        let tables = Set(entities.map { $0.tableOverride ?? $0.name.snakeCased })
        for type in enums {
            let what = "enum \(type.name)"
            if !seen.insert(type.name).inserted { messages.append("\(what) is declared twice.") }
            if SQLName.isToolName(type.name) || !SQLName.isSQLName(type.name) || type.name.utf8.count > Self.maximumNameBytes {
                messages.append("\(what) is not a valid name: a name starts with a letter or \"_\" (not \"\(SQLName.toolPrefix)\"), "
                    + "has only letters, digits and \"_\", and at most 63 bytes.")
            }
            if tables.contains(type.name) { messages.append("\(what) has the name of a table; PostgreSQL keeps types and tables under one name.") }
            if type.values.isEmpty { messages.append("\(what) has no values; list them in order, such as [pending, paid].") }
            var values: Set<String> = []
            for value in type.values {
                if !values.insert(value).inserted { messages.append("\(what) lists the value \"\(value)\" twice.") }
                if value.isEmpty || value.utf8.count > Self.maximumNameBytes {
                    messages.append("\(what) has the value \"\(value)\"; a value has 1 to 63 bytes.")
                }
            }
            for (new, old) in type.renamedValues.sorted(by: { $0.key < $1.key }) {
                if !values.contains(new) { messages.append("\(what) renames \"\(old)\" to \"\(new)\", which is not among its values.") }
                if values.contains(old) { messages.append("\(what) renames \"\(old)\" to \"\(new)\", but still lists \"\(old)\".") }
            }
            if Set(type.renamedValues.values).count != type.renamedValues.count {
                messages.append("\(what) renames one old value to two new ones.")
            }
        }
        var diagnostics = messages.map { ModelDiagnostic(file: file, line: 0, message: $0) }
        let byName = Dictionary(enums.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for entity in entities {
            for attribute in entity.attributes {
                guard let name = attribute.columnType?.enumName else { continue }
                let what = "attribute \(entity.name).\(attribute.name)"
                guard let type = byName[name] else {
                    diagnostics.append(ModelDiagnostic(at: attribute.location, orIn: file, "\(what) has type enum(\(name)), but no enum \(name) is declared under enums."))
                    continue
                }
                if case let .string(value)? = attribute.defaultValue, !type.values.contains(value) {
                    diagnostics.append(ModelDiagnostic(at: attribute.location, orIn: file,
                        "the default \"\(value)\" of \(what) is not a value of enum \(name) (\(type.values.joined(separator: ", ")))."))
                }
            }
        }
        return diagnostics
    }
}
