import EntityModel
import LibPQ
import TypedSQL

/// Synthetic data for one version of a family, generated from its relational mapping, for
/// `check --round-trip`.
///
/// Every value is a pure function of the seed, the table, the column and the row number, computed
/// by PostgreSQL: each table is filled by one `INSERT … SELECT … FROM generate_series(1, n)`, each
/// optional to-one by one `UPDATE`, each join table by one `INSERT … SELECT`. The same seed gives
/// the same data. The rows cover, per column type: the type's extremes (within range), zero or
/// empty values, non-ASCII text, special floating-point values, JSON `null` and empty documents,
/// and SQL NULLs in every optional column (in the third row of each entity). Unique columns get distinct values; required ones (and those a
/// sub-entity requires) no NULL; discriminators only the hierarchy's concrete entities; foreign
/// keys only rows of the relationship's destination entity (or its sub-entities).
public struct RoundTripData: Sendable {
    public let version: ModelVersion
    /// The seed every value derives from.
    public let seed: Int
    /// Rows per (concrete) entity.
    public let rowsPerEntity: Int

    /// The version's tables.
    private let relational: RelationalSchema

    public init(version: ModelVersion, seed: Int, rowsPerEntity: Int) {
        self.version = version
        self.relational = version.relationalSchema()
        self.seed = seed
        self.rowsPerEntity = rowsPerEntity
    }

    /// Inserts the data into `schema`, whose tables were created from ``version``'s schema.
    public func insert(inSchema schema: String, on connection: Connection) throws {
        let tables = relational.tables
        let entityTables = insertionOrder(tables.filter { if case .entity = $0.origin { true } else { false } })
        for table in entityTables { try insertRows(of: table, schema: schema, on: connection) }
        for table in entityTables { try linkOptionalToOnes(of: table, schema: schema, on: connection) }
        for table in tables { if case .joinTable = table.origin { try insertLinks(of: table, schema: schema, on: connection) } }
    }

    // MARK: Tables of entities

    private func insertRows(of table: Table, schema: String, on connection: Connection) throws {
        let entities = concreteEntities(of: table)
        let count = rowsPerEntity * max(1, entities.count)
        var names: [String] = []
        var values: [SQL] = []
        for column in table.columns {
            let value: SQL?
            switch column.origin {
            case .primaryKey: value = Self.primaryKeyValue(column, row: "g.i", md5: md5(table, column, row: "g.i"))
            case .discriminator:
                value = "(CASE (g.i - 1) % \(int: entities.count) \(entities.enumerated().map { "WHEN \(int: $0.offset) THEN \(literal: $0.element) " as SQL }, joinedBy: "")END)"
            case .attribute:
                value = attributeValue(column, in: table, row: "g.i")
            case .relationship:
                value = column.isNullable ? nil : reference(column, in: table, schema: schema, row: "g.i")
            case .joinSource, .joinDestination: value = nil
            }
            guard let value else { continue }
            names.append(column.name)
            values.append(value)
        }
        try connection.execute(
            "INSERT INTO \(schema: schema, table: table.name) (\(ids: names)) SELECT \(values, joinedBy: ", ") FROM pg_catalog.generate_series(1, \(int: count)) AS g(i)"
        )
        // (A serial key's sequence moves on as an identity's does.)
        if let id = table.column(named: "id"), id.isIdentity || id.generation == .serial {
            try connection.execute("SELECT pg_catalog.setval(pg_catalog.pg_get_serial_sequence(\(qualifiedNameLiteral: table.name), 'id'), $1)", schema: schema, [Int64(count)])
        }
    }

    /// Optional to-ones are set after every table has its rows, so cycles and self-references work.
    private func linkOptionalToOnes(of table: Table, schema: String, on connection: Connection) throws {
        let assignments = table.columns.filter { column in
            if case .relationship = column.origin { return column.isNullable } else { return false }
        }.map { column -> SQL in
            let row = Self.rowNumber(of: table, "u")
            return "\(id: column.name) = CASE WHEN \(hash(table, column, row: row)) % 5 = 0 THEN NULL ELSE \(reference(column, in: table, schema: schema, row: row)) END"
        }
        guard !assignments.isEmpty else { return }
        try connection.execute("UPDATE \(schema: schema, table: table.name) AS u SET \(assignments, joinedBy: ", ")")
    }

    /// The id of a row of the relationship's destination: a pseudo-random one, or the row's own
    /// number for a unique foreign key (a one-to-one), so no two rows share it.
    private func reference(_ column: Column, in table: Table, schema: String, row: SQL) -> SQL {
        guard let key = table.foreignKeys.first(where: { $0.columns == [column.name] }) else { return "NULL" }
        let target: SQL = "\(schema: schema, table: key.referencedTable)"
        let referenced: SQL = "\(id: key.referencedColumns.first ?? "id")"
        if key.referencedTable == table.name, !column.isNullable { return row }
        var filter: SQL = "TRUE"
        if case let .relationship(entity, name) = column.origin, let destination = destinationEntity(of: name, in: entity) {
            filter = membership("t", of: destination, in: key.referencedTable)
        }
        let offset: SQL = isUnique(column, in: table)
            ? "(\(row) - 1)"
            : "(\(hash(table, column, row: row)) % GREATEST(1, (SELECT pg_catalog.count(*) FROM \(target) AS t WHERE \(filter))))"
        return "(SELECT t.\(referenced) FROM \(target) AS t WHERE \(filter) ORDER BY t.\(referenced) OFFSET \(offset) LIMIT 1)"
    }

    // MARK: Join tables

    private func insertLinks(of table: Table, schema: String, on connection: Connection) throws {
        guard let source = table.columns.first(where: { if case .joinSource = $0.origin { true } else { false } }),
              let destination = table.columns.first(where: { if case .joinDestination = $0.origin { true } else { false } }),
              let sourceKey = table.foreignKeys.first(where: { $0.columns == [source.name] }),
              let destinationKey = table.foreignKeys.first(where: { $0.columns == [destination.name] })
        else { return }
        var filters: [SQL] = ["TRUE", "TRUE"]
        if case let .joinSource(entity, name) = source.origin, let target = destinationEntity(of: name, in: entity) {
            filters = [membership("s", of: entity, in: sourceKey.referencedTable), membership("d", of: target, in: destinationKey.referencedTable)]
        }
        // Up to three links per source row (some get none), each to a pseudo-random destination
        // row, found by its number: a hash join, linear in the rows.
        // (Rows are found by the key each side references: `id`, or a natural key's column.)
        let sourceID: SQL = "\(id: sourceKey.referencedColumns.first ?? "id")", destinationID: SQL = "\(id: destinationKey.referencedColumns.first ?? "id")"
        let draw: SQL = "('x' || pg_catalog.substr(pg_catalog.md5(\(literal: "\(seed)/\(table.name)/") || s.\(sourceID)::text || ':' || j.k::text), 1, 15))::bit(60)::bigint"
        try connection.execute(
            """
            WITH d AS (SELECT d.\(destinationID) AS id, pg_catalog.row_number() OVER (ORDER BY d.\(destinationID)) AS n \
            FROM \(schema: schema, table: destinationKey.referencedTable) AS d WHERE \(filters[1])), \
            c AS (SELECT GREATEST(1, pg_catalog.count(*)) AS c FROM d) \
            INSERT INTO \(schema: schema, table: table.name) (\(ids: [source.name, destination.name])) \
            SELECT DISTINCT s.\(sourceID), d.id FROM \(schema: schema, table: sourceKey.referencedTable) AS s \
            CROSS JOIN pg_catalog.generate_series(1, 3) AS j(k) CROSS JOIN c JOIN d ON d.n = 1 + \(draw) % c.c \
            WHERE \(filters[0]) AND \(draw) % 4 <> 0
            """
        )
    }

    // MARK: Values

    /// A pseudo-random non-negative bigint (60 bits) for this seed, table, column and row.
    private func hash(_ table: Table, _ column: Column, row: SQL) -> SQL {
        "('x' || pg_catalog.substr(pg_catalog.md5(\(literal: "\(seed)/\(table.name)/\(column.name)/") || \(row)::text), 1, 15))::bit(60)::bigint"
    }

    private func md5(_ table: Table, _ column: Column, row: SQL) -> SQL {
        "pg_catalog.md5(\(literal: "\(seed)/\(table.name)/\(column.name)/") || \(row)::text)"
    }

    /// Text values: empty, non-ASCII, quotes and backslashes, control characters, surrounding
    /// spaces, and words some mappings test for.
    static let texts = ["", "Crème brûlée", "Ünïcødé 東京 🍰", "O'Brien \"quoted\" \\ back", "line 1\nline 2\ttab", " padded ",
                        "Meat", "Fish", "Other", "UPPER lower"]

    private func attributeValue(_ column: Column, in table: Table, row i: SQL) -> SQL {
        let h = hash(table, column, row: i)
        let unique = isUnique(column, in: table)
        let value: SQL
        switch column.type {
        case .text:
            let choices: SQL = "(ARRAY[\(literals: Array(Self.texts.dropFirst(unique ? 1 : 0))), \(md5(table, column, row: i))])"
            let pick: SQL = "\(choices)[1 + \(h) % \(int: Self.texts.count + (unique ? 0 : 1))]"
            value = unique ? "(CASE WHEN \(i) = 1 THEN '' ELSE \(pick) || ' #' || \(i)::text END)" : pick
        case .smallint: value = integer(min: "-32768", max: "32767", random: "(\(h) % 65536 - 32768)", unique: unique, i: i, type: "smallint")
        case .integer: value = integer(min: "-2147483648", max: "2147483647", random: "(\(h) % 4294967296 - 2147483648)", unique: unique, i: i, type: "integer")
        case .bigint: value = integer(min: "-9223372036854775808", max: "9223372036854775807", random: "((\(h) - 576460752303423488) * 7)", unique: unique, i: i, type: "bigint")
        case .numeric:
            value = """
                (CASE WHEN \(i) = 1 THEN -123456789012345678901234567890.123456789012345678901234567890 \
                WHEN \(i) = 2 THEN 0.000000000000000000000000000001 \
                \(unique ? "ELSE \(i)::numeric / 8 END)" : "WHEN \(i) % 5 = 0 THEN 0 ELSE (\(h) % 100000000)::numeric / 1000 END)" as SQL)
                """
        case .doublePrecision:
            value = """
                (CASE WHEN \(i) = 1 THEN 1.7976931348623157e308::float8 WHEN \(i) = 2 THEN -1.7976931348623157e308::float8 \
                WHEN \(i) = 4 THEN 5e-324::float8 WHEN \(i) = 5 THEN 'Infinity'::float8 WHEN \(i) = 7 THEN 'NaN'::float8 \
                \(unique ? "ELSE \(i)::float8 / 3 END)" : "ELSE (\(h) - 576460752303423488)::float8 / 1000003 END)" as SQL)
                """
        case .real:
            value = """
                (CASE WHEN \(i) = 1 THEN 3.4028235e38::real WHEN \(i) = 2 THEN -3.4028235e38::real WHEN \(i) = 4 THEN 1e-45::real \
                \(unique ? "ELSE \(i)::real / 4 END)" : "ELSE ((\(h) % 2000000) - 1000000)::real / 7 END)" as SQL)
                """
        case .boolean:
            value = unique ? "(\(i) = 1)" : "(\(h) % 2 = 0)"
        case .timestamptz:
            value = """
                (CASE WHEN \(i) = 1 THEN '0001-01-01 00:00:00+00'::timestamptz WHEN \(i) = 2 THEN '9999-12-31 23:59:59.999999+00'::timestamptz \
                ELSE '2000-01-01 00:00:00+00'::timestamptz + \(unique ? "\(i) * interval '1 day' + " : "" as SQL)(\(h) % 1000000000000000) * interval '1 microsecond' END)
                """
        case .uuid:
            value = "\(md5(table, column, row: i))::uuid"
        case .bytea:
            value = "(CASE WHEN \(i) = 1 THEN '\\x'::bytea WHEN \(i) = 2 THEN '\\x00ff00'::bytea ELSE pg_catalog.decode(\(md5(table, column, row: i)), 'hex') END)"
        case .jsonb:
            value = """
                (CASE WHEN \(i) = 1 THEN '{}'::jsonb WHEN \(i) = 2 THEN 'null'::jsonb \
                WHEN \(i) = 4 THEN \(literal: #"{"ü": "東京 🍰", "n": [1e300, -0.5, true, null, ""]}"#)::jsonb \
                \(unique ? "" : "WHEN \(i) % 5 = 0 THEN '[]'::jsonb " as SQL)\
                ELSE pg_catalog.jsonb_build_object('i', \(i), 'h', \(md5(table, column, row: i))) END)
                """
        default:
            // A PostgreSQL type a version file names (issue 34): numerics, dates and character
            // types made here (unique ones from the row's number), else empty.
            value = Self.postgreSQLTypeValue(column, row: i, hash: h, md5: md5(table, column, row: i), unique: unique) ?? "NULL::\(type: column.type)"
        }
        guard mayBeNull(column, in: table) else { return value }
        // The third row of every entity (rows of a hierarchy take turns), so every optional
        // attribute gets a NULL, a sub-entity's too.
        let entities = max(1, concreteEntities(of: table).count)
        return entities == 1 ? "(CASE WHEN \(i) % 6 = 3 THEN NULL ELSE \(value) END)"
            : "(CASE WHEN ((\(i) - 1) / \(int: entities)) % 6 = 2 THEN NULL ELSE \(value) END)"
    }

    private func integer(min: SQL, max: SQL, random: SQL, unique: Bool, i: SQL, type: SQL) -> SQL {
        "(CASE WHEN \(i) = 1 THEN \(min) WHEN \(i) = 2 THEN \(max) \(unique ? "ELSE \(i) END)::\(type)" : "WHEN \(i) % 5 = 0 THEN 0 ELSE \(random) END)::\(type)" as SQL)"
    }

    // MARK: Constraints

    /// The destination entity of `entity`'s relationship `name` (declared or inherited).
    private func destinationEntity(of name: String, in entity: String) -> String? {
        version.allRelationships(of: entity).first { $0.relationship.name == name }?.relationship.destination
    }

    /// A predicate on the row `alias` of `table`: it is an `entity` or one of its sub-entities
    /// (TRUE when the table holds one entity only).
    private func membership(_ alias: SQL, of entity: String, in table: String) -> SQL {
        guard let discriminator = relational.tables.first(where: { $0.name == table })?
            .columns.first(where: { $0.origin == .discriminator }) else { return "TRUE" }
        return "\(alias).\(id: discriminator.name) IN (\(literals: version.hierarchy(of: entity)))"
    }

    private func isUnique(_ column: Column, in table: Table) -> Bool {
        // (A natural or composite key's attributes too: each unique makes the key unique. Its to-ones
        // stay pseudo-random, so a key of to-ones alone may repeat.)
        if case .attribute = column.origin, table.primaryKey.columns.contains(column.name) { return true }
        return table.uniqueConstraints.contains { $0.columns.contains(column.name) }
    }

    /// Whether NULL is allowed in every row: the column is nullable and no sub-entity requires it.
    private func mayBeNull(_ column: Column, in table: Table) -> Bool {
        column.isNullable && !table.checkConstraints.contains { check in
            if case let .requiredForEntities(name, _, _) = check.condition { return name == column.name }
            return false
        }
    }

    /// The entities whose rows the table holds, without abstract ones, in hierarchy order.
    private func concreteEntities(of table: Table) -> [String] {
        guard case let .entity(root) = table.origin else { return [] }
        return version.hierarchy(of: root).filter { version.entity(named: $0)?.isAbstract != true }
    }

    /// Tables in an order where every required foreign key points at a table filled before.
    private func insertionOrder(_ tables: [Table]) -> [Table] {
        var remaining = tables
        var ordered: [Table] = []
        while !remaining.isEmpty {
            let done = Set(ordered.map(\.name))
            let index = remaining.firstIndex { table in
                table.foreignKeys.allSatisfy { key in
                    key.referencedTable == table.name || done.contains(key.referencedTable)
                        || key.columns.allSatisfy { table.column(named: $0)?.isNullable ?? true }
                }
            } ?? 0
            ordered.append(remaining.remove(at: index))
        }
        return ordered
    }
}
