/// Reads a PostgreSQL type as a version file writes it in `type:` (`varchar(255)`, `numeric(12,2)`,
/// `timestamp(3)`, `text[]`, `pg.date`) into its ``SQLType`` in the spelling `format_type` prints,
/// so that two spellings of one type are one type.
///
/// Only built-in types are read: character types with a length, `numeric` with precision and scale,
/// the integer and floating-point types, `boolean`, `date`, `time` and `timestamp` with or without
/// time zone and with precision, `interval`, `uuid`, `json`, `jsonb`, `bytea`, `inet`, `cidr`,
/// `macaddr`, and one-dimensional arrays of any of them.
enum PostgreSQLTypeName {
    /// The prefix that makes a name PostgreSQL's where the model has a type of that name
    /// (`pg.date` is PostgreSQL's `date`; `date` is the model's point in time, a `timestamptz`).
    static let prefix = "pg."

    /// The type `written` names, or nil when it names none of the types above (or a length or
    /// precision out of PostgreSQL's range).
    static func parse(_ written: String) -> SQLType? {
        var text = written.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
        if text.hasPrefix(prefix) { text.removeFirst(prefix.count) }
        text = text.replacingOccurrences(of: " (", with: "(").replacingOccurrences(of: ", ", with: ",")
            .replacingOccurrences(of: " [", with: "[")
        if text.hasSuffix("[]") {
            guard let element = scalar(String(text.dropLast(2))) else { return nil }
            return SQLType(rawValue: catalogName(element) + "[]")
        }
        return scalar(text)
    }

    /// The model's kind of value for a column of `type`: how its default is read and written.
    static func kind(of type: SQLType) -> AttributeType {
        if let exact = AttributeType.allCases.first(where: { $0.sqlType == type }) { return exact }
        if type.rawValue.hasPrefix("numeric(") { return .decimal }
        if type.rawValue.hasPrefix("timestamp("), type.rawValue.hasSuffix(" with time zone") { return .date }
        return .string
    }

    /// How a version file writes `type`: the name of the model's type when it is that type's column
    /// type, else PostgreSQL's name (with ``prefix`` where the model has a type of that name).
    static func written(_ type: SQLType) -> String {
        if let exact = AttributeType.allCases.first(where: { $0.sqlType == type }) { return exact.rawValue }
        return AttributeType(rawValue: type.rawValue) != nil ? prefix + type.rawValue : type.rawValue
    }

    /// `type` as `format_type` prints it (`timestamptz` is `timestamp with time zone`).
    static func catalogName(_ type: SQLType) -> String {
        type == .timestamptz ? "timestamp with time zone" : type.rawValue
    }

    private static let plain: [String: SQLType] = [
        "smallint": .smallint, "int2": .smallint,
        "integer": .integer, "int": .integer, "int4": .integer,
        "bigint": .bigint, "int8": .bigint,
        "real": .real, "float4": .real,
        "double precision": .doublePrecision, "float8": .doublePrecision, "float": .doublePrecision,
        "boolean": .boolean, "bool": .boolean,
        "text": .text, "uuid": .uuid, "bytea": .bytea, "jsonb": .jsonb,
        "numeric": .numeric, "decimal": .numeric,
        "timestamptz": .timestamptz, "timestamp with time zone": .timestamptz,
        "json": SQLType(rawValue: "json"), "date": SQLType(rawValue: "date"),
        "inet": SQLType(rawValue: "inet"), "cidr": SQLType(rawValue: "cidr"), "macaddr": SQLType(rawValue: "macaddr"),
        "interval": SQLType(rawValue: "interval"),
        "character varying": SQLType(rawValue: "character varying"), "varchar": SQLType(rawValue: "character varying"),
        "character": SQLType(rawValue: "character(1)"), "char": SQLType(rawValue: "character(1)"),
        "timestamp": SQLType(rawValue: "timestamp without time zone"),
        "timestamp without time zone": SQLType(rawValue: "timestamp without time zone"),
        "time": SQLType(rawValue: "time without time zone"), "time without time zone": SQLType(rawValue: "time without time zone"),
        "timetz": SQLType(rawValue: "time with time zone"), "time with time zone": SQLType(rawValue: "time with time zone"),
    ]

    private static func scalar(_ text: String) -> SQLType? {
        if let type = plain[text] { return type }
        if let match = text.wholeMatch(of: /(varchar|character varying|char|character)\(([0-9]{1,8})\)/) {
            guard let length = Int(match.2), (1...10_485_760).contains(length) else { return nil }
            return SQLType(rawValue: (match.1.hasPrefix("var") || match.1.hasSuffix("varying") ? "character varying" : "character") + "(\(length))")
        }
        if let match = text.wholeMatch(of: /(numeric|decimal)\(([0-9]{1,4})(?:,([0-9]{1,4}))?\)/) {
            guard let precision = Int(match.2), let scale = Int(match.3 ?? "0"), (1...1000).contains(precision), scale <= precision
            else { return nil }
            return SQLType(rawValue: "numeric(\(precision),\(scale))")
        }
        if let match = text.wholeMatch(of: /(timestamptz|timetz|timestamp|time)\(([0-9])\)( with time zone| without time zone)?/) {
            guard let precision = Int(match.2), precision <= 6 else { return nil }
            let zoned = match.1.hasSuffix("tz") ? match.3 != " without time zone" : match.3 == " with time zone"
            let base = match.1.hasPrefix("timestamp") ? "timestamp" : "time"
            return SQLType(rawValue: "\(base)(\(precision)) \(zoned ? "with" : "without") time zone")
        }
        if let match = text.wholeMatch(of: /interval\(([0-9])\)/) {
            guard let precision = Int(match.1), precision <= 6 else { return nil }
            return SQLType(rawValue: "interval(\(precision))")
        }
        return nil
    }
}
