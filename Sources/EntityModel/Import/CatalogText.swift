import Foundation

/// Reads back what PostgreSQL's catalog functions print (`format_type`, `pg_get_expr`,
/// `pg_get_constraintdef`) as model values: column types, defaults, and the check constraints a
/// model renders for inheritance.
enum CatalogText {
    /// The model type of a column printed as `sqlType`, the PostgreSQL type it names where that is
    /// not the model type's own (`character varying(20)`), and whether the model carries the column
    /// type exactly (it does for every type ``PostgreSQLTypeName`` reads; a `citext` is carried as a
    /// `string`).
    static func attributeType(for sqlType: String) -> (type: AttributeType, columnType: SQLType?, isExact: Bool) {
        if let exact = AttributeType.allCases.first(where: { $0.sqlType.catalogName == sqlType }) { return (exact, nil, true) }
        if let parsed = PostgreSQLTypeName.parse(PostgreSQLTypeName.prefix + sqlType), PostgreSQLTypeName.catalogName(parsed) == sqlType {
            return (PostgreSQLTypeName.kind(of: parsed), parsed, true)
        }
        let (type, isExact) = nearestType(for: sqlType)
        return (type, nil, isExact)
    }

    /// The model type nearest to a column type the model cannot carry.
    private static func nearestType(for sqlType: String) -> (type: AttributeType, isExact: Bool) {
        let base = sqlType.prefix { $0 != "(" && $0 != "[" }.trimmingCharacters(in: .whitespaces)
        switch base {
        case _ where sqlType.hasSuffix("]"): return (.json, false)
        case "character varying", "character", "\"char\"", "citext", "name", "inet", "cidr", "macaddr", "interval", "money", "xml":
            return (.string, false)
        case "numeric": return (.decimal, false)
        case "timestamp without time zone", "timestamp with time zone", "date": return (.date, false)
        case "json": return (.json, false)
        default: return (.string, false)
        }
    }

    /// The default `expression` stands for in an attribute of `type`, when it is a constant the
    /// model can write; nil for anything else (`now()`, `nextval(…)`, an expression).
    static func defaultValue(_ expression: String, as type: AttributeType) -> DefaultValue? {
        let text: String
        if let literal = literal(expression) {
            text = literal
        } else if expression.wholeMatch(of: /-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?|true|false/) != nil {
            text = expression
        } else {
            return nil
        }
        switch type {
        case .binary:
            guard text.hasPrefix("\\x"), let bytes = hexBytes(text.dropFirst(2)) else { return nil }
            return .binary(bytes)
        case .date:
            return DefaultValue.parsing(isoTimestamp(text) ?? text, as: type)
        case .double, .float:
            switch text {
            case "Infinity": return .floatingPoint(.infinity)
            case "-Infinity": return .floatingPoint(-.infinity)
            default: return DefaultValue.parsing(text, as: type)
            }
        default:
            return DefaultValue.parsing(text, as: type)
        }
    }

    /// Whether a default that is not a constant can be a ``DefaultValue/expression(_:)``: anything but
    /// a generated column's expression and a sequence's `nextval`, whose sequence the model does not
    /// carry (a tenant created from the model would not have it).
    static func isExpressibleDefault(_ expression: String) -> Bool {
        !expression.hasPrefix("GENERATED ") && !expression.contains("nextval(")
    }

    /// The text of a literal `'…'` or `'…'::type` (also `E'…'`), the type also a quoted name
    /// (`'READER'::"Role"`, a Prisma enum's default), or nil when `expression` is not one.
    static func literal(_ expression: String) -> String? {
        guard let match = expression.wholeMatch(of: /(E?)'((?:[^']|'')*)'(::(?:[a-z][a-z0-9_ ]*|"(?:[^"]|"")+")(\([0-9, ]+\))?(\[\])?)?/) else { return nil }
        var text = String(match.2).replacingOccurrences(of: "''", with: "'")
        if !match.1.isEmpty {
            guard let unescaped = unescapeBackslashes(text) else { return nil }
            text = unescaped
        }
        return text
    }

    /// `1999-12-31 23:59:59.5+00` (as PostgreSQL prints a `timestamptz`) → `1999-12-31T23:59:59.5+00:00`.
    static func isoTimestamp(_ text: String) -> String? {
        guard let match = text.wholeMatch(of: /([0-9]{4}-[0-9]{2}-[0-9]{2}) ([0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?)([-+][0-9]{2})(:[0-9]{2})?/) else {
            return nil
        }
        return "\(match.1)T\(match.2)\(match.3)\(match.4 ?? ":00")"
    }

    /// The values of `CHECK ((entity = ANY (ARRAY['A'::text, 'B'::text])))` or
    /// `CHECK ((entity = 'A'::text))`: the discriminator's allowed values.
    static func discriminatorValues(_ check: String) -> [String]? {
        let column = SQLName.discriminatorColumn
        if let match = check.wholeMatch(of: /CHECK \(\((\w+) = ANY \(ARRAY\[(.*)\]\)\)\)/), match.1 == column {
            return literalList(String(match.2))
        }
        if let match = check.wholeMatch(of: /CHECK \(\((\w+) = ('(?:[^']|'')*'::text)\)\)/), match.1 == column {
            return literal(String(match.2)).map { [$0] }
        }
        return nil
    }

    /// The entities and column of `CHECK (((entity <> 'A'::text) OR (col IS NOT NULL)))` or
    /// `CHECK (((entity <> ALL (ARRAY['A'::text, 'B'::text])) OR ("Col" IS NOT NULL)))`: the
    /// column is required for rows of those entities.
    static func requirement(_ check: String) -> (entities: [String], column: String)? {
        let pattern = /CHECK \(\(\((\w+) <> (?:ALL \(ARRAY\[(.*)\]\)|('(?:[^']|'')*'::text))\) OR \((\w+|"(?:[^"]|"")+") IS NOT NULL\)\)\)/
        guard let match = check.wholeMatch(of: pattern), match.1 == SQLName.discriminatorColumn else { return nil }
        let entities = match.2.map { literalList(String($0)) } ?? match.3.flatMap { literal(String($0)) }.map { [$0] }
        guard let entities, let column = identifier(String(match.4)) else { return nil }
        return (entities, column)
    }

    /// An identifier as PostgreSQL prints it: bare, or in double quotes with `""` for `"`.
    static func identifier(_ printed: String) -> String? {
        guard printed.hasPrefix("\"") else { return printed }
        guard printed.count >= 2, printed.hasSuffix("\"") else { return nil }
        return String(printed.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
    }

    /// `'A'::text, 'B'::text` → `[A, B]`.
    private static func literalList(_ text: String) -> [String]? {
        var values: [String] = []
        for match in text.matches(of: /'((?:[^']|'')*)'::text/) {
            values.append(String(match.1).replacingOccurrences(of: "''", with: "'"))
        }
        return values.isEmpty ? nil : values
    }

    private static func hexBytes(_ hex: Substring) -> [UInt8]? {
        guard hex.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }

    /// The text of an `E'…'` literal's body: `\\` and `\'` unescaped; nil for other escapes.
    private static func unescapeBackslashes(_ text: String) -> String? {
        var out = ""
        var escaping = false
        for character in text {
            if escaping {
                guard character == "\\" || character == "'" else { return nil }
                out.append(character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                out.append(character)
            }
        }
        return escaping ? nil : out
    }
}

extension SQLType {
    /// The type as `format_type` prints it.
    var catalogName: String {
        self == .timestamptz ? "timestamp with time zone" : rawValue
    }
}
