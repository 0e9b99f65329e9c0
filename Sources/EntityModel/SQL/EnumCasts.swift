import TypedSQL

/// Casts to a version's own enum types in the SQL expressions the model states (defaults,
/// checks, index keys and partial-index conditions).
///
/// PostgreSQL prints a comparison with an enum value as a cast (`state <> 'shipped'::order_state`),
/// and that is how `model import` carries it. The type lives in each tenant's schema, which no
/// migrator session has on its `search_path` (`pg_catalog, pg_temp`), so the name alone would not
/// resolve ("type order_state does not exist"). When a version is mapped to tables, each such cast
/// that names a type of the version without a schema is marked (``marking(_:enums:)``); DDL then
/// writes the type in the tenant's schema (``SQL/init(modelExpression:)``), as it does for a column
/// of that type.
enum EnumCasts {
    /// Encloses an enum type's name in a marked expression; no SQL text holds it.
    static let marker: Character = "\u{1}"

    /// `text` with the type name of each cast `::name` or `::"Name"` (not schema-qualified) that
    /// names one of `enums` enclosed in ``marker``s. Literals (`'…'`, `E'…'`) and quoted names
    /// are read past, so a `::` inside them is left alone; an unquoted name is folded to lower
    /// case, as PostgreSQL reads it.
    static func marking(_ text: String, enums: Set<String>) -> String {
        guard !enums.isEmpty, text.contains("::") else { return text }
        let characters = Array(text)
        var result = "", index = 0
        func skipQuoted(_ quote: Character, backslashEscapes: Bool) {
            result.append(characters[index]); index += 1
            while index < characters.count {
                let character = characters[index]
                result.append(character); index += 1
                if backslashEscapes && character == "\\" && index < characters.count {
                    result.append(characters[index]); index += 1
                } else if character == quote {
                    return
                }
            }
        }
        while index < characters.count {
            let character = characters[index]
            if character == "'" {
                let escapes = index > 0 && (characters[index - 1] == "E" || characters[index - 1] == "e")
                skipQuoted("'", backslashEscapes: escapes)
            } else if character == "\"" {
                skipQuoted("\"", backslashEscapes: false)
            } else if character == ":" && index + 1 < characters.count && characters[index + 1] == ":" {
                result += "::"; index += 2
                while index < characters.count && characters[index] == " " { result.append(" "); index += 1 }
                guard let (name, end) = typeName(in: characters, at: index) else { continue }
                let written = String(characters[index..<end])
                let qualified = end < characters.count && characters[end] == "."
                result += !qualified && enums.contains(name) ? "\(marker)\(name)\(marker)" : written
                index = end
            } else {
                result.append(character); index += 1
            }
        }
        return result
    }

    /// The name a type reference starting at `start` gives (a quoted name as written, an unquoted
    /// one in lower case) and where it ends; nil where no name starts there.
    private static func typeName(in characters: [Character], at start: Int) -> (String, Int)? {
        guard start < characters.count else { return nil }
        if characters[start] == "\"" {
            var name = "", index = start + 1
            while index < characters.count {
                if characters[index] == "\"" {
                    if index + 1 < characters.count && characters[index + 1] == "\"" { name.append("\""); index += 2; continue }
                    return (name, index + 1)
                }
                name.append(characters[index]); index += 1
            }
            return nil
        }
        guard characters[start].isLetter || characters[start] == "_" else { return nil }
        var index = start
        while index < characters.count && (characters[index].isLetter || characters[index].isNumber || characters[index] == "_" || characters[index] == "$") {
            index += 1
        }
        return (String(characters[start..<index]).lowercased(), index)
    }
}

extension SQL {
    /// An SQL expression of a model version (a default, a check, an index key or condition) as
    /// DDL writes it: its text, with each cast to an enum type of the version naming that type in
    /// the tenant's schema (see ``EnumCasts``).
    public init(modelExpression text: String) {
        guard text.contains(EnumCasts.marker) else {
            self = "\(raw: text)"
            return
        }
        var sql: SQL = ""
        for (position, piece) in text.split(separator: EnumCasts.marker, omittingEmptySubsequences: false).enumerated() {
            sql.append(position % 2 == 0 ? "\(raw: String(piece))" : "\(table: String(piece))")
        }
        self = sql
    }
}

extension RelationalSchema {
    /// This schema with the casts to `enums` in its expressions marked (``EnumCasts``): column
    /// defaults, checks, index keys and partial-index conditions.
    func markingEnumCasts(_ enums: [EnumType]) -> RelationalSchema {
        let names = Set(enums.map(\.name))
        guard !names.isEmpty else { return self }
        var schema = self
        for tableIndex in schema.tables.indices {
            var table = schema.tables[tableIndex]
            for column in table.columns.indices {
                if case .expression(let text)? = table.columns[column].defaultValue {
                    table.columns[column].defaultValue = .expression(EnumCasts.marking(text, enums: names))
                }
            }
            for check in table.checkConstraints.indices {
                if case let .expression(text, columns) = table.checkConstraints[check].condition {
                    table.checkConstraints[check].condition = .expression(EnumCasts.marking(text, enums: names), columns: columns)
                }
            }
            for index in table.indexes.indices {
                table.indexes[index].elements = table.indexes[index].elements?.map { EnumCasts.marking($0, enums: names) }
                table.indexes[index].predicate = table.indexes[index].predicate.map { EnumCasts.marking($0, enums: names) }
            }
            schema.tables[tableIndex] = table
        }
        return schema
    }
}

extension RelationalSchema {
    /// The checks and indexes whose expressions cast to the enum type `type` (each with its
    /// table), which a rebuild of the type must drop and make again: they would keep the type it
    /// sets aside.
    public func expressions(castingTo type: String) -> (checks: [(table: String, check: CheckConstraint)], indexes: [(table: String, index: Index)]) {
        let mark = "\(EnumCasts.marker)\(type)\(EnumCasts.marker)"
        var checks: [(String, CheckConstraint)] = [], indexes: [(String, Index)] = []
        for table in tables {
            for check in table.checkConstraints {
                if case let .expression(text, _) = check.condition, text.contains(mark) { checks.append((table.name, check)) }
            }
            for index in table.indexes where (index.elements ?? []).contains(where: { $0.contains(mark) }) || index.predicate?.contains(mark) == true {
                indexes.append((table.name, index))
            }
        }
        return (checks, indexes)
    }
}
