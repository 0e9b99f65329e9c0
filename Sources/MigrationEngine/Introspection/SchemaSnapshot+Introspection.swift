import EntityModel
import LibPQ

/// Why a ``SchemaSnapshot`` could not be read.
public enum SchemaSnapshotError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No schema of this name exists in the database.
    case schemaNotFound(String)

    public var description: String {
        switch self {
        case .schemaNotFound(let schema): "schema \(schema) does not exist"
        }
    }
}

extension SchemaSnapshot {
    /// Reads the tables of `schema` from pg_catalog: columns, primary key, unique, foreign-key and
    /// check constraints, and the indexes that back no constraint.
    ///
    /// Four set-based catalog queries cover the whole schema, whatever its number of tables; the
    /// schema name travels as a parameter. Ordinary and partitioned tables are read (partitions are
    /// tables too); views, sequences and the like are not. Tables whose names start with `_` are
    /// skipped: that prefix is reserved for the tool's own bookkeeping (`docs/ModelFormat.md`).
    /// Catalog text (types, defaults, checks, index expressions) is stripped of the schema's own
    /// name, so a snapshot does not depend on the schema's name or on `search_path`.
    ///
    /// - Throws: ``SchemaSnapshotError/schemaNotFound(_:)`` when `schema` does not exist, or the
    ///   server's error.
    public static func read(schema: String, on connection: Connection) throws -> SchemaSnapshot {
        let tableRows = try connection.execute(Catalog.tables, [schema])
        guard let first = tableRows.first else { throw SchemaSnapshotError.schemaNotFound(schema) }
        let normalizer = SchemaQualifierStripper(quotedSchema: try first.decode(String.self, column: "quoted_schema"))
        var builders: [String: TableBuilder] = [:]
        for row in tableRows {
            if let name = try row.decode(String?.self, column: "table_name") { builders[name] = TableBuilder() }
        }
        let sequences = try readSequences(schema: schema, on: connection)
        let enums = try enumTypes(inSchema: schema, on: connection)
        let domains = try domains(inSchema: schema, strip: normalizer.strip, on: connection)
        guard !builders.isEmpty else {
            var snapshot = SchemaSnapshot(tables: [], sequences: sequences, enums: enums)
            snapshot.domains = domains
            return snapshot
        }

        for row in try connection.execute(Catalog.columns, [schema]) {
            let table = try row.decode(String.self, column: "table_name")
            var defaultExpression = try row.decode(String?.self, column: "default_expression").map(normalizer.strip)
            if try row.decode(Bool.self, column: "is_generated"), let expression = defaultExpression {
                defaultExpression = "GENERATED ALWAYS AS (\(expression)) STORED"
            }
            builders[table]?.columns.append(ColumnSnapshot(
                name: try row.decode(String.self, column: "column_name"),
                type: normalizer.strip(try row.decode(String.self, column: "type")),
                isNullable: try row.decode(Bool.self, column: "is_nullable"),
                defaultExpression: defaultExpression,
                isIdentity: try row.decode(Bool.self, column: "is_identity"),
                identityGeneration: try row.decode(String?.self, column: "identity_generation"),
                identitySequence: try row.decode(String?.self, column: "identity_sequence")
            ))
        }

        for row in try connection.execute(Catalog.constraints, [schema]) {
            let table = try row.decode(String.self, column: "table_name")
            let columns = try row.decode(PQJSON.self, column: "columns").decode([String].self)
            switch try row.decode(String.self, column: "kind") {
            case "p":
                builders[table]?.primaryKey = columns
            case "u":
                builders[table]?.uniqueConstraints.append(columns)
            case "f":
                builders[table]?.foreignKeys.append(ForeignKeySnapshot(
                    columns: columns,
                    referencedTable: try row.decode(String.self, column: "referenced_table"),
                    referencedColumns: try row.decode(PQJSON.self, column: "referenced_columns").decode([String].self),
                    onDelete: Self.referentialAction(try row.decode(String.self, column: "delete_action")),
                    onUpdate: try row.decode(String?.self, column: "update_action").map(Self.referentialAction),
                    deferral: try row.decode(String?.self, column: "deferral")
                ))
            default:
                builders[table]?.checks.append(normalizer.strip(try row.decode(String.self, column: "definition")))
            }
        }

        for row in try connection.execute(Catalog.indexes, [schema]) {
            let table = try row.decode(String.self, column: "table_name")
            builders[table]?.indexes.append(IndexSnapshot(
                name: try row.decode(String.self, column: "index_name"),
                columns: try row.decode(PQJSON.self, column: "columns").decode([String].self).map(normalizer.strip),
                isUnique: try row.decode(Bool.self, column: "is_unique"),
                isPrimary: try row.decode(Bool.self, column: "is_primary"),
                method: try row.decode(String.self, column: "method"),
                predicate: try row.decode(String?.self, column: "predicate").map(normalizer.strip)
            ))
        }

        var snapshot = SchemaSnapshot(tables: builders.map { name, builder in builder.table(named: name) }, sequences: sequences, enums: enums)
        snapshot.domains = domains
        try snapshot.readComments(inSchema: schema, on: connection)
        return snapshot
    }

    /// The tables of `schema` whose columns are in another order than `version`'s model order
    /// (only the columns both have are compared): `verify --strict`.
    public static func columnOrderDifferences(inSchema schema: String, from version: ModelVersion, on connection: Connection) throws -> [ColumnOrderDifference] {
        let live = try columnOrder(inSchema: schema, on: connection)
        return version.relationalSchema().tables.compactMap { table in
            guard let columns = live[table.name] else { return nil }
            let expected = table.columns.map(\.name).filter(columns.contains)
            let actual = columns.filter(expected.contains)
            return expected == actual ? nil : ColumnOrderDifference(table: table.name, expected: expected, actual: actual)
        }
    }

    /// The columns of each table of `schema` in their physical (`attnum`) order, dropped ones left
    /// out, by table name: what `SELECT *` returns. One catalog query for the whole schema, of its
    /// ordinary and partitioned tables but the migrator's own (`_tm_…`).
    public static func columnOrder(inSchema schema: String, on connection: Connection) throws -> [String: [String]] {
        var live: [String: [String]] = [:]
        for row in try connection.execute(
            """
            SELECT c.relname::text, a.attname::text FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
            JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped \
            WHERE n.nspname = $1 AND \(Catalog.tableFilter) ORDER BY c.relname, a.attnum
            """, [schema]) {
            live[try row.decode(String.self, at: 0), default: []].append(try row.decode(String.self, at: 1))
        }
        return live
    }

    /// `pg_constraint.confdeltype` as SQL keywords.
    private static func referentialAction(_ code: String) -> String {
        switch code {
        case "a": "NO ACTION"
        case "r": "RESTRICT"
        case "c": "CASCADE"
        case "n": "SET NULL"
        case "d": "SET DEFAULT"
        default: code
        }
    }
}

/// A table's parts while its rows come in.
private struct TableBuilder {
    var columns: [ColumnSnapshot] = []
    var primaryKey: [String]?
    var uniqueConstraints: [[String]] = []
    var foreignKeys: [ForeignKeySnapshot] = []
    var checks: [String] = []
    var indexes: [IndexSnapshot] = []

    func table(named name: String) -> TableSnapshot {
        TableSnapshot(
            name: name, columns: columns, primaryKey: primaryKey, uniqueConstraints: uniqueConstraints,
            foreignKeys: foreignKeys, checks: checks, indexes: indexes
        )
    }
}

extension SchemaSnapshot {
    /// A constraint's (`con`) columns in key order, as a JSON array of names.
    static let constraintColumns = columnNames(con: "conkey", of: "conrelid")

    /// A foreign key's (`con`) referenced columns in key order, as a JSON array of names.
    static let referencedColumns = columnNames(con: "confkey", of: "confrelid")

    /// The names of the attribute numbers in `con.<keys>` of the relation `con.<relation>`, in order, as a JSON array.
    private static func columnNames(con keys: String, of relation: String) -> SQL {
        """
        to_json(ARRAY(
            SELECT a.attname::text
            FROM unnest(con.\(id: keys)) WITH ORDINALITY AS k(attnum, position)
            JOIN pg_catalog.pg_attribute a ON a.attrelid = con.\(id: relation) AND a.attnum = k.attnum
            ORDER BY k.position))::text
        """
    }

    /// An index's (`x`, of `pg_index`) keys, as a JSON array: a key column is its name; an
    /// expression is `pg_get_indexdef`'s text for that column, in parentheses; either is followed by
    /// its operator class where that is not the type's default (`title varchar_pattern_ops`) and its
    /// order where that is not ascending with NULLs last (`last_seen DESC`).
    static let indexKeys: SQL = """
        to_json(ARRAY(
            SELECT CASE WHEN x.indkey[k] <> 0 THEN a.attname::text
                        ELSE '(' || pg_catalog.pg_get_indexdef(x.indexrelid, k + 1, true) || ')' END
                   || CASE WHEN opc.opcdefault THEN '' ELSE ' ' || opc.opcname::text END
                   || CASE x.indoption[k]::int & 3 WHEN 3 THEN ' DESC' WHEN 1 THEN ' DESC NULLS LAST'
                                                   WHEN 2 THEN ' NULLS FIRST' ELSE '' END
            FROM generate_series(0, x.indnkeyatts - 1) AS k
            LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = x.indkey[k]
            LEFT JOIN pg_catalog.pg_opclass opc ON opc.oid = x.indclass[k]
            ORDER BY k))::text
        """
}

/// The catalog queries. Each takes the schema's name as `$1` and covers every table of the schema.
private enum Catalog {
    /// The tables the snapshot covers: ordinary and partitioned, not starting with `_`.
    /// Tables, but the tool's own (`_tm_…`, ``SQLName/toolPrefix``).
    static let tableFilter: SQL = "c.relkind IN ('r', 'p') AND left(c.relname, 4) <> '_tm_'"

    /// One row per table, or one row with a NULL table when the schema is empty; no row when the
    /// schema does not exist. `quoted_schema` is the name as catalog functions print it.
    static let tables: SQL = """
        SELECT quote_ident(n.nspname) AS quoted_schema, c.relname::text AS table_name
        FROM pg_catalog.pg_namespace n
        LEFT JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND \(tableFilter)
        WHERE n.nspname = $1
        """

    static let columns: SQL = """
        SELECT c.relname::text AS table_name, a.attname::text AS column_name,
               pg_catalog.format_type(a.atttypid, a.atttypmod) AS type,
               NOT a.attnotnull AS is_nullable,
               pg_catalog.pg_get_expr(d.adbin, d.adrelid) AS default_expression,
               a.attidentity <> '' AS is_identity,
               CASE WHEN a.attidentity = 'a' THEN 'ALWAYS' END AS identity_generation,
               a.attgenerated <> '' AS is_generated,
               CASE WHEN i.start <> 1 OR i.increment <> 1 OR i.limits IS NOT NULL
                    THEN 'START WITH ' || i.start::text || ' INCREMENT BY ' || i.increment::text || coalesce(' ' || i.limits, '') END AS identity_sequence
        FROM pg_catalog.pg_class c
        JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        LEFT JOIN LATERAL (
            SELECT s.seqstart AS start, s.seqincrement AS increment, \(SchemaSnapshot.sequenceLimits) AS limits
            FROM pg_catalog.pg_depend dep
            JOIN pg_catalog.pg_sequence s ON s.seqrelid = dep.objid
            \(SchemaSnapshot.sequenceTypeBounds)
            WHERE a.attidentity <> '' AND dep.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND dep.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
              AND dep.refobjid = c.oid AND dep.refobjsubid = a.attnum AND dep.deptype = 'i') AS i ON true
        WHERE n.nspname = $1 AND \(tableFilter)
        """

    /// Primary-key, unique, foreign-key and check constraints, with their column lists in key order.
    static let constraints: SQL = """
        SELECT c.relname::text AS table_name, con.contype::text AS kind,
               \(SchemaSnapshot.constraintColumns) AS columns,
               CASE WHEN r.relnamespace = n.oid THEN r.relname::text
                    ELSE quote_ident(rn.nspname) || '.' || quote_ident(r.relname) END AS referenced_table,
               \(SchemaSnapshot.referencedColumns) AS referenced_columns,
               con.confdeltype::text AS delete_action,
               CASE WHEN con.confupdtype <> 'a' THEN con.confupdtype::text END AS update_action,
               CASE WHEN con.condeferrable THEN 'DEFERRABLE INITIALLY ' || CASE WHEN con.condeferred THEN 'DEFERRED' ELSE 'IMMEDIATE' END END AS deferral,
               CASE WHEN con.contype = 'c' THEN pg_catalog.pg_get_constraintdef(con.oid) END AS definition
        FROM pg_catalog.pg_constraint con
        JOIN pg_catalog.pg_class c ON c.oid = con.conrelid
        JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_catalog.pg_class r ON r.oid = con.confrelid
        LEFT JOIN pg_catalog.pg_namespace rn ON rn.oid = r.relnamespace
        WHERE n.nspname = $1 AND \(tableFilter) AND con.contype IN ('p', 'u', 'f', 'c')
        """

    /// Indexes that back no primary-key or unique constraint, with their keys (``SchemaSnapshot/indexKeys``).
    static let indexes: SQL = """
        SELECT c.relname::text AS table_name, i.relname::text AS index_name,
               x.indisunique AS is_unique, x.indisprimary AS is_primary, am.amname::text AS method,
               pg_catalog.pg_get_expr(x.indpred, x.indrelid) AS predicate,
               \(SchemaSnapshot.indexKeys) AS columns
        FROM pg_catalog.pg_index x
        JOIN pg_catalog.pg_class c ON c.oid = x.indrelid
        JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid
        JOIN pg_catalog.pg_am am ON am.oid = i.relam
        WHERE n.nspname = $1 AND \(tableFilter)
          AND NOT EXISTS (
              SELECT 1 FROM pg_catalog.pg_constraint con
              WHERE con.conindid = x.indexrelid AND con.conrelid = x.indrelid AND con.contype IN ('p', 'u'))
        """
}
