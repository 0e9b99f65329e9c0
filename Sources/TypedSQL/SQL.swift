/// A statement, or a piece of one, whose names and values are typed: SQL text as written,
/// identifiers, string constants for DDL, the tenant's schema, and values sent as parameters.
///
/// Write it as a string literal with typed interpolations, in the manner of GRDB's `SQL` literals
/// and postgres-nio's `PostgresQuery`:
///
/// ```swift
/// let rename: SQL = "ALTER TABLE \(table: "recipe") RENAME COLUMN \(id: "title") TO \(id: "name")"
/// let backfill: SQL = "UPDATE \(table: "recipe") SET \(id: "rating") = \(bind: .integer(0)) WHERE \(id: "rating") IS NULL"
/// ```
///
/// A plain `String` cannot be interpolated: say what it is (`id:`, `table:`, `literal:`, `bind:`, or
/// `raw:` for SQL text such as a mapping's value expression). Nothing names the tenant's schema
/// until the statement is rendered, so one value serves every tenant: ``text(schema:quoting:)`` for
/// plans and logs (parameters inline, as literals), ``parameterized(schema:quoting:)`` for execution.
/// Rendering needs no connection.
public struct SQL: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// One typed part of a statement.
    public enum Fragment: Sendable, Hashable {
        /// SQL text, as written.
        case text(String)
        /// A name, quoted when rendered.
        case identifier(String)
        /// A string constant, quoted into the text (where PostgreSQL takes no parameters: DDL).
        case literal(String)
        /// The tenant's schema, named when rendered.
        case tenantSchema
        /// A table (index, sequence, enum type) of the tenant's schema, qualified, its name spelled
        /// by the ``TableNaming`` the statement is rendered with: `"tenant_acme"."recipe"`.
        case table(String)
        /// A name the statement gives in the tenant's schema, bare (a table's new name, an index's,
        /// a constraint's), spelled by the ``TableNaming`` as ``table(_:)`` is: `"recipe_pkey"`.
        case objectName(String)
        /// A table of the tenant's schema as a string constant holding its qualified, quoted name,
        /// `'"tenant_acme"."recipe"'`, for functions that take a name (`pg_get_serial_sequence`);
        /// spelled by the ``TableNaming`` as ``table(_:)`` is.
        case qualifiedNameLiteral(String)
        /// A value sent as a parameter (`$1`, `$2`, …), or inline as a literal in a plan.
        case bind(SQLValue)
    }

    /// The parts, in order.
    public private(set) var fragments: [Fragment]

    public init(fragments: [Fragment]) {
        self.fragments = fragments
    }

    public init(stringLiteral text: String) {
        fragments = text.isEmpty ? [] : [.text(text)]
    }

    public init(stringInterpolation: Interpolation) {
        fragments = stringInterpolation.fragments
    }

    /// The tenant's schema, as a piece to interpolate: `"\(SQL.schema).\(id: "recipe")"`.
    public static let schema = SQL(fragments: [.tenantSchema])

    /// Whether there is nothing to run.
    public var isEmpty: Bool { fragments.isEmpty }

    /// Whether the statement names the tenant's schema (``schema``, `table:`, `qualifiedNameLiteral:`),
    /// so that it can be rendered only for a given schema.
    public var usesTenantSchema: Bool {
        fragments.contains { fragment in
            switch fragment {
            case .tenantSchema, .table, .qualifiedNameLiteral: true
            default: false
            }
        }
    }

    /// Whether the statement carries values to send as parameters (`bind:`).
    public var hasBinds: Bool {
        fragments.contains { if case .bind = $0 { true } else { false } }
    }

    /// `lhs` followed by `rhs`.
    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        SQL(fragments: lhs.fragments + rhs.fragments)
    }

    /// Appends `other`.
    public mutating func append(_ other: SQL) {
        fragments += other.fragments
    }

    /// The statement for `schema`, its names in that schema spelled by `tables` (by default as the
    /// caller's ``TableNaming/rendering(_:in:_:)`` says for `schema`, else the model's), with every
    /// value inline as a literal: what a plan shows and a log records.
    public func text(schema: String, tables: TableNaming? = nil, quoting q: some SQLQuoting = .postgreSQL) -> String {
        let tables = tables ?? .current(for: schema)
        var text = ""
        let quotedSchema = q.quoteIdentifier(schema)
        for fragment in fragments {
            switch fragment {
            case let .bind(value): text += value.literal(quoting: q)
            default: text += Self.render(fragment, quotedSchema: quotedSchema, tables: tables, quoting: q)
            }
        }
        return text
    }

    /// The statement for `schema`, its names in that schema spelled by `tables` (by default as for
    /// ``text(schema:tables:quoting:)``), with each value as a parameter `$n`, and the values in order.
    public func parameterized(schema: String, tables: TableNaming? = nil, quoting q: some SQLQuoting = .postgreSQL)
        -> (text: String, values: [SQLValue]) {
        let tables = tables ?? .current(for: schema)
        var text = ""
        var values: [SQLValue] = []
        let quotedSchema = q.quoteIdentifier(schema)
        for fragment in fragments {
            switch fragment {
            case let .bind(value):
                values.append(value)
                text += "$\(values.count)"
            default: text += Self.render(fragment, quotedSchema: quotedSchema, tables: tables, quoting: q)
            }
        }
        return (text, values)
    }

    /// The text of a fragment other than a value.
    private static func render(_ fragment: Fragment, quotedSchema: String, tables: TableNaming, quoting q: some SQLQuoting) -> String {
        switch fragment {
        case let .text(part): part
        case let .identifier(name): q.quoteIdentifier(name)
        case let .literal(value): q.quoteLiteral(value)
        case .tenantSchema: quotedSchema
        case let .table(name): quotedSchema + "." + q.quoteIdentifier(tables.name(name))
        case let .objectName(name): q.quoteIdentifier(tables.name(name))
        case let .qualifiedNameLiteral(name): q.quoteLiteral(quotedSchema + "." + q.quoteIdentifier(tables.name(name)))
        case let .bind(value): value.literal(quoting: q)
        }
    }

    /// The statement with the tenant's schema fixed to `schema` and its names there to `tables` (by
    /// default as for ``text(schema:tables:quoting:)``): a statement over one schema's tables, to
    /// put inside a statement rendered for another.
    public func naming(schema: String, tables: TableNaming? = nil, quoting q: some SQLQuoting = .postgreSQL) -> SQL {
        let tables = tables ?? .current(for: schema)
        return SQL(fragments: fragments.flatMap { fragment -> [Fragment] in
            switch fragment {
            case .tenantSchema: [.identifier(schema)]
            case let .table(name): [.identifier(schema), .text("."), .identifier(tables.name(name))]
            case let .objectName(name): [.identifier(tables.name(name))]
            case let .qualifiedNameLiteral(name): [.literal(q.quoteIdentifier(schema) + "." + q.quoteIdentifier(tables.name(name)))]
            default: [fragment]
            }
        })
    }

    /// The statement with its names in the tenant's schema spelled by `tables`, the schema still
    /// open: rendered for a schema, it gives what rendering it with `tables` would. For code that
    /// hands statements on to be rendered with their schema alone (LibPQ's `Statement`).
    public func renamed(tables: TableNaming) -> SQL {
        guard tables != .model else { return self }
        return SQL(fragments: fragments.map { fragment in
            switch fragment {
            case let .table(name): .table(tables.name(name))
            case let .objectName(name): .objectName(tables.name(name))
            case let .qualifiedNameLiteral(name): .qualifiedNameLiteral(tables.name(name))
            default: fragment
            }
        })
    }

    /// The statement with `<schema>` for the tenant's schema, for messages and debugging.
    public var description: String { text(schema: "<schema>") }

    /// Builds a ``SQL`` from a string interpolation; see ``SQL`` for the forms it takes.
    public struct Interpolation: StringInterpolationProtocol {
        var fragments: [Fragment] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            fragments.reserveCapacity(interpolationCount * 2 + 1)
        }

        public mutating func appendLiteral(_ literal: String) {
            appendText(literal)
        }

        /// Another piece of SQL.
        public mutating func appendInterpolation(_ sql: SQL) {
            for fragment in sql.fragments {
                if case let .text(text) = fragment { appendText(text) } else { fragments.append(fragment) }
            }
        }

        /// Pieces of SQL, with `separator` between them: `\(columns, joinedBy: ", ")`.
        public mutating func appendInterpolation(_ pieces: [SQL], joinedBy separator: String) {
            for (index, piece) in pieces.enumerated() {
                if index > 0 { appendText(separator) }
                appendInterpolation(piece)
            }
        }

        /// A name: `"recipe"`.
        public mutating func appendInterpolation(id name: String) {
            fragments.append(.identifier(name))
        }

        /// Names separated by commas: `"a", "b"`.
        public mutating func appendInterpolation(ids names: [String]) {
            appendInterpolation(names.map { SQL(fragments: [.identifier($0)]) }, joinedBy: ", ")
        }

        /// A table, index, sequence or enum type of the tenant's schema: `"tenant_acme"."recipe"`,
        /// its name spelled by the ``TableNaming`` the statement is rendered with.
        public mutating func appendInterpolation(table name: String) {
            fragments.append(.table(name))
        }

        /// A name the statement gives in the tenant's schema, bare: a table's or index's new name
        /// (`RENAME TO`), an index's (`CREATE INDEX`), a constraint's. Spelled by the
        /// ``TableNaming`` as `table:` is, so that a shadow's names never meet the live tables'.
        public mutating func appendInterpolation(objectName name: String) {
            fragments.append(.objectName(name))
        }

        /// An object in a schema named here, not the tenant's: `"tenant_migrator"."tenants"`, or the
        /// catalog's `"pg_catalog"."pg_class"`.
        public mutating func appendInterpolation(schema: String, table name: String) {
            fragments.append(.identifier(schema))
            appendText(".")
            fragments.append(.identifier(name))
        }

        /// A name as PostgreSQL's catalog gave it, quoted by the server itself
        /// (`pg_catalog.format('%I.%I', n.nspname, c.relname)`, `c.oid::pg_catalog.regclass::text`):
        /// a catalog-owned name, put in as it came back, never text from elsewhere.
        public mutating func appendInterpolation(quotedByServer name: String) {
            appendText(name)
        }

        /// Text inside a `--` comment: a name, a user's expression. Line breaks become spaces, so
        /// that the text cannot end the comment.
        public mutating func appendInterpolation(comment text: String) {
            appendText(String(text.map { $0.isNewline ? " " : $0 }))
        }

        /// A number, as digits: `LIMIT \(int: 100)`.
        public mutating func appendInterpolation(int number: some BinaryInteger) {
            appendText(String(number))
        }

        /// A keyword chosen from a closed set: an enumeration whose raw values are SQL text
        /// (`\(keyword: LockMode.forUpdate)`), never text from outside.
        public mutating func appendInterpolation<Keyword: RawRepresentable & CaseIterable>(keyword: Keyword)
        where Keyword.RawValue == String {
            appendText(keyword.rawValue)
        }

        /// A string constant in the text: `'Other'`.
        public mutating func appendInterpolation(literal value: String) {
            fragments.append(.literal(value))
        }

        /// String constants separated by commas: `'A', 'B'`.
        public mutating func appendInterpolation(literals values: [String]) {
            appendInterpolation(values.map { SQL(fragments: [.literal($0)]) }, joinedBy: ", ")
        }

        /// A table of the tenant's schema as a string constant: `'"tenant_acme"."recipe"'`.
        public mutating func appendInterpolation(qualifiedNameLiteral name: String) {
            fragments.append(.qualifiedNameLiteral(name))
        }

        /// A value sent as a parameter.
        public mutating func appendInterpolation(bind value: SQLValue) {
            fragments.append(.bind(value))
        }

        /// Text sent as a parameter; `nil` as NULL.
        public mutating func appendInterpolation(bind value: String?) {
            fragments.append(.bind(value.map(SQLValue.text) ?? .null))
        }

        /// A number sent as a parameter (`bigint`).
        public mutating func appendInterpolation(bind value: Int) {
            fragments.append(.bind(.integer(Int64(value))))
        }

        /// A flag sent as a parameter.
        public mutating func appendInterpolation(bind value: Bool) {
            fragments.append(.bind(.boolean(value)))
        }

        /// SQL text as it is, unchecked: a mapping's value expression after it was checked, text a
        /// model's DDL renderer made. Each use says why its text is safe.
        public mutating func appendInterpolation(raw text: String) {
            appendText(text)
        }

        private mutating func appendText(_ text: String) {
            guard !text.isEmpty else { return }
            if case let .text(previous) = fragments.last {
                fragments[fragments.count - 1] = .text(previous + text)
            } else {
                fragments.append(.text(text))
            }
        }
    }
}

extension Array where Element == SQL {
    /// The pieces with `separator` between them.
    public func joined(separator: String) -> SQL {
        "\(self, joinedBy: separator)"
    }
}

/// A value sent with a statement as a parameter.
public enum SQLValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case text(String)
    case integer(Int64)
    case boolean(Bool)

    /// The value as an SQL literal, for a statement shown with its values inline.
    public func literal(quoting q: some SQLQuoting = .postgreSQL) -> String {
        switch self {
        case .null: "NULL"
        case let .text(text): q.quoteLiteral(text)
        case let .integer(number): String(number)
        case let .boolean(flag): flag ? "true" : "false"
        }
    }

    public var description: String { literal() }
}
