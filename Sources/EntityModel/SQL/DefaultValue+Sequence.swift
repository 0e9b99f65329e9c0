import TypedSQL

extension DefaultValue {
    /// The sequence a default draws from, when it is `nextval('name'::regclass)` as `pg_get_expr`
    /// prints it for a sequence of the table's own schema (`name` unquoted, or in double quotes).
    public var sequenceName: String? {
        guard case .expression(let text) = self else { return nil }
        return Self.sequenceName(inNextval: text)
    }

    /// The sequence named by `nextval('name'::regclass)`, or nil when `text` is not that.
    static func sequenceName(inNextval text: String) -> String? {
        if let match = text.wholeMatch(of: /nextval\('([a-z_][a-z0-9_$]*)'::regclass\)/) { return String(match.1) }
        if let match = text.wholeMatch(of: /nextval\('"((?:[^"']|"")+)"'::regclass\)/) { return match.1.replacingOccurrences(of: "\"\"", with: "\"") }
        return nil
    }

    /// `nextval('<schema>.<sequence>'::regclass)` for a default drawn from a sequence of the
    /// tenant's schema, so that the DDL does not depend on `search_path`; nil for other defaults.
    var qualifiedNextval: SQL? {
        sequenceName.map { "nextval(\(qualifiedNameLiteral: $0)::regclass)" }
    }
}
