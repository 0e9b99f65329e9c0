import EntityModel
import LibPQ
import TypedSQL

/// Whether PostgreSQL resolves a model version's SQL expressions (``ModelExpression``: defaults,
/// checks, index keys and partial-index conditions) only to objects no untrusted role controls.
///
/// Those expressions run with the rights of whoever writes the rows: the migrator, when a default
/// fills existing rows, a check is validated, an index is built, a shadow or a new tenant is
/// filled. A name in them is resolved when the DDL runs. Unqualified, it finds only `pg_catalog`
/// (every migrator session has `search_path = pg_catalog, pg_temp`); qualified (`public.f(x)`,
/// `OPERATOR(public.===)`), it finds whatever is in that schema, and a role that may create
/// objects there can plant a better match (an overload for `varchar` where the column is
/// `varchar`, an operator for the column's exact types) that PostgreSQL then prefers.
///
/// Text cannot tell which object a name resolves to; PostgreSQL can. Within a savepoint that is
/// always rolled back, the version's tables that carry expressions are made as empty temporary
/// tables with their defaults and checks, each partial index's condition as a check, each index
/// key as a temporary view over its table: made, not run (nothing is evaluated when a table or a
/// view is created), and resolved exactly as the DDL will resolve them, with the session's own
/// `search_path`. `pg_depend` then names by OID every function, operator, type and collation each
/// of them uses (built-in objects are pinned and never listed). Each must be owned by a superuser
/// or by the migrator (`current_user`; `pg_database_owner` stands for the database's owner); so
/// must an operator's commutator and negator (which the planner may put in its place) and the
/// functions behind them, and every other function or operator of the same name in the same
/// schema (what a name might resolve to where a column's type differs when the DDL runs). A
/// function or operator must also lie in a schema no other role may create objects in: else a better match
/// could be planted there at any time, between this check and the DDL, or before the next tenant.
/// The session's `search_path` must hold no such schema either, since an unqualified name could
/// then be captured. Anything else is refused with ``UntrustedExpression``, before the DDL runs.
///
/// An expression PostgreSQL cannot read fails here with PostgreSQL's own error, as the DDL would.
public struct ExpressionTrust {
    let version: ModelVersion
    let expressions: [ModelExpression]

    /// The expressions of `version`.
    public init(version: ModelVersion) {
        self.version = version
        self.expressions = ModelExpression.all(in: version)
    }

    /// The name of the probe object (a check or a view) of `expressions[index]`.
    static func probeName(_ index: Int) -> String { "#expression \(index)" }

    /// The temporary tables with their defaults and checks (partial-index conditions as checks), for
    /// schema `pg_temp`, after the version's own enum types (a column's type) and sequences (which a
    /// `nextval` default names).
    var tableStatements: [SQL] {
        let schema = version.relationalSchema()
        let tables: [SQL] = schema.tables.compactMap { table in
            let own = expressions.indices.filter { expressions[$0].table == table.name }
            guard !own.isEmpty else { return nil }
            var parts: [SQL] = table.columns.map { column in
                guard case .expression(let sql)? = column.defaultValue else { return "\(id: column.name) \(column.type.sql)" }
                return "\(id: column.name) \(column.type.sql) DEFAULT \(SQL(modelExpression: sql))"
            }
            for index in own {
                switch expressions[index].kind {
                case .check, .indexPredicate:
                    parts.append("CONSTRAINT \(id: Self.probeName(index)) CHECK (\(SQL(modelExpression: expressions[index].sql)))")
                case .columnDefault, .indexKey:
                    break
                }
            }
            return "CREATE TEMPORARY TABLE \(table: table.name) (\(parts, joinedBy: ", "))"
        }
        return tables.isEmpty ? [] : schema.enumTypes.map(\.creation) + schema.sequences.map(\.creation) + tables
    }

    /// Raises ``UntrustedExpression`` when an expression of the version uses an object that an
    /// untrusted role controls. Asked on `connection` (inside the caller's transaction, if any),
    /// within a savepoint rolled back before it returns: nothing of it stays.
    public func check(on connection: Connection) throws {
        guard !expressions.isEmpty else { return }
        try connection.sendQueuedStatements()
        struct Verdict: Error { let findings: [UntrustedExpression.Finding] }
        do {
            try connection.savepoint { connection in
                try connection.pipeline(tableStatements.map { Statement(inlining: $0, schema: "pg_temp") })
                for (index, expression) in expressions.enumerated() {
                    guard case .indexKey = expression.kind else { continue }
                    try makeView(index, of: expression, on: connection)
                }
                let rows = try connection.execute(Statement(inlining: Self.verdicts(in: "pg_catalog.pg_my_temp_schema()", searchPath: true), schema: "pg_temp"))
                throw Verdict(findings: try rows.map { try finding(from: $0) })
            }
        } catch let verdict as Verdict {
            guard verdict.findings.isEmpty else { throw UntrustedExpression(findings: verdict.findings) }
        }
    }

    /// A view of index key `index`: `SELECT <key> FROM <table>`. What may follow an expression in
    /// an index key (`DESC`, `NULLS LAST`, an operator class with parameters) is no SQL of a select
    /// list; where PostgreSQL reports a syntax error, the last word is left off and the rest tried
    /// again (an operator class alone reads as a column alias). Words are left off only from the
    /// end, so the first text PostgreSQL reads holds the whole expression.
    private func makeView(_ index: Int, of expression: ModelExpression, on connection: Connection) throws {
        var words = expression.sql.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        while true {
            let view: SQL = "CREATE TEMPORARY VIEW \(table: Self.probeName(index)) AS SELECT \(SQL(modelExpression: words.joined(separator: " "))) FROM \(table: expression.table)"
            do {
                _ = try connection.savepoint { try $0.execute(Statement(inlining: view, schema: "pg_temp")) }
                return
            } catch SQLState.syntaxError where words.count > 1 {
                words.removeLast()
            }
        }
    }

    /// What the tables of `schema` (a tenant's) already use that is not trusted: their checks,
    /// defaults, indexes and column types, as ``check(on:)`` judges the model's. Such an object
    /// runs with the migrator's rights whenever the migrator writes the table's rows, so a schema
    /// that has one is not adopted, and `verify` reports it.
    ///
    /// Without `rules`, what the rules on its tables use is left out (a migration switches those
    /// rules off while it writes).
    public static func existing(inSchema schema: String, rules: Bool = true, on connection: Connection) throws -> [UntrustedExpression.Finding] {
        let namespace: SQL = "(SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = \(literal: schema))"
        return try connection.execute(Statement(inlining: verdicts(in: namespace, searchPath: false, rules: rules), schema: schema)).map { row in
            let kind = try row.decode(String.self, at: 0), relation = try row.decode(String.self, at: 1), part = try row.decode(String.self, at: 2)
            let place = switch kind {
            case "constraint": "constraint \(part) of table \(relation)"
            case "default": "the default of column \(relation).\(part)"
            case "column": "the type of column \(relation).\(part)"
            case "index": "index \(relation)"
            case "rule": "rule \(part) on table \(relation)"
            default: "\(kind) \(relation)"
            }
            return try finding(place: "schema \(schema): " + place, row)
        }
    }

    /// One row of ``verdicts`` as what the model says and what it uses.
    private func finding(from row: Row) throws -> UntrustedExpression.Finding {
        let kind = try row.decode(String.self, at: 0), relation = try row.decode(String.self, at: 1), part = try row.decode(String.self, at: 2)
        let place: String
        let tables = version.relationalSchema().tables
        switch kind {
        case "constraint", "view":
            let name = kind == "view" ? relation : part
            let index = name.hasPrefix("#expression ") ? Int(name.dropFirst("#expression ".count)) ?? -1 : -1
            let expression = expressions.indices.contains(index) ? expressions[index] : nil
            place = expression.map { "\($0.place) (`\($0.sql)`)" } ?? "an expression of version \(version.name)"
        case "default", "column":
            let table = tables.first { $0.name == relation }
            let column = table?.columns.first { $0.name == part }
            let sql = kind == "default" ? expressions.first { $0.table == relation && $0.kind == .columnDefault(column: part) }?.sql : nil
            place = table.flatMap { table in column.map { ModelPlace(table: table, version: version).column($0, kind == "default" ? "the defaultExpression of" : "the type of") } }
                .map { $0 + (sql.map { " (`\($0)`)" } ?? "") } ?? "column \(relation).\(part) of version \(version.name)"
        default:
            place = "version \(version.name): the session's search_path, used by its expressions,"
        }
        return try Self.finding(place: place, row)
    }

    /// A row of ``verdicts(in:searchPath:)``, found at `place`.
    static func finding(place: String, _ row: Row) throws -> UntrustedExpression.Finding {
        UntrustedExpression.Finding(
            place: place, object: try row.decode(String.self, at: 3), owner: try row.decode(String.self, at: 4),
            ownerIsTrusted: try row.decode(Bool.self, at: 5), creator: try row.decode(String?.self, at: 6), schema: try row.decode(String.self, at: 7)
        )
    }

    /// What the tables, views and indexes in `namespace` use that is not trusted, one row each:
    /// where (`constraint` with the table and the constraint's name, `view` with its name, `index`
    /// with its name, `default` or `column` with the table and column), the object as
    /// `pg_describe_object` names it, its owner, whether the owner is trusted, a role other than a
    /// superuser and the migrator that may create objects in its schema (or NULL), the schema.
    /// With `searchPath`, then each schema of the session's `search_path` that is not trusted
    /// (`search_path`). Without `rules`, the rules on tables (`rule`, with the table and the rule's
    /// name) are left out: a migration switches them off (views' rules are always in). With
    /// `functions`, what the functions in `namespace` use too (`function` with its name: a policy's
    /// statement as a function's body, ``PolicyStatementTrust``).
    static func verdicts(in namespace: SQL, searchPath: Bool, rules: Bool = true, functions: Bool = false) -> SQL {
        """
        WITH source AS (
            SELECT 'column' AS kind, c.relname::text AS relation, a.attname::text AS part, d.refclassid, d.refobjid
            FROM pg_catalog.pg_depend AS d JOIN pg_catalog.pg_class AS c ON c.oid = d.objid
                JOIN pg_catalog.pg_attribute AS a ON a.attrelid = c.oid AND a.attnum = d.objsubid
            WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND c.relnamespace = \(namespace) AND c.relkind = 'r'
            UNION ALL
            SELECT 'default', c.relname::text, a.attname::text, d.refclassid, d.refobjid
            FROM pg_catalog.pg_depend AS d JOIN pg_catalog.pg_attrdef AS f ON f.oid = d.objid JOIN pg_catalog.pg_class AS c ON c.oid = f.adrelid
                JOIN pg_catalog.pg_attribute AS a ON a.attrelid = f.adrelid AND a.attnum = f.adnum
            WHERE d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass AND c.relnamespace = \(namespace)
            UNION ALL
            SELECT 'constraint', c.relname::text, k.conname::text, d.refclassid, d.refobjid
            FROM pg_catalog.pg_depend AS d JOIN pg_catalog.pg_constraint AS k ON k.oid = d.objid JOIN pg_catalog.pg_class AS c ON c.oid = k.conrelid
            WHERE d.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass AND c.relnamespace = \(namespace)
            UNION ALL
            SELECT CASE WHEN r.rulename = '_RETURN' THEN 'view' ELSE 'rule' END, c.relname::text,
                CASE WHEN r.rulename = '_RETURN' THEN '' ELSE r.rulename::text END, d.refclassid, d.refobjid
            FROM pg_catalog.pg_depend AS d JOIN pg_catalog.pg_rewrite AS r ON r.oid = d.objid JOIN pg_catalog.pg_class AS c ON c.oid = r.ev_class
            WHERE d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND c.relnamespace = \(namespace)
                AND \(raw: rules ? "true" : "r.rulename = '_RETURN'")
            UNION ALL
            SELECT 'index', c.relname::text, '', d.refclassid, d.refobjid
            FROM pg_catalog.pg_depend AS d JOIN pg_catalog.pg_class AS c ON c.oid = d.objid
            WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND c.relnamespace = \(namespace) AND c.relkind IN ('i', 'I')
            UNION ALL
            SELECT 'function', p.proname::text, '', d.refclassid, d.refobjid
            FROM pg_catalog.pg_depend AS d JOIN pg_catalog.pg_proc AS p ON p.oid = d.objid
            WHERE d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND p.pronamespace = \(namespace) AND \(raw: functions ? "true" : "false")
        ), operator AS (
            SELECT kind, relation, part, o.oid, o.oprcom, o.oprnegate
            FROM source JOIN pg_catalog.pg_operator AS o ON source.refclassid = 'pg_catalog.pg_operator'::pg_catalog.regclass AND o.oid = source.refobjid
        ), used AS (
            SELECT kind, relation, part, refclassid AS classid, refobjid AS objid FROM source
            WHERE refclassid IN ('pg_catalog.pg_proc'::pg_catalog.regclass, 'pg_catalog.pg_operator'::pg_catalog.regclass,
                                 'pg_catalog.pg_type'::pg_catalog.regclass, 'pg_catalog.pg_collation'::pg_catalog.regclass)
            UNION
            SELECT kind, relation, part, 'pg_catalog.pg_operator'::pg_catalog.regclass, linked.oid
            FROM operator CROSS JOIN LATERAL pg_catalog.unnest(ARRAY[operator.oprcom, operator.oprnegate]) AS linked(oid)
            WHERE linked.oid <> 0
            UNION
            SELECT kind, relation, part, 'pg_catalog.pg_proc'::pg_catalog.regclass, f.oid
            FROM operator JOIN pg_catalog.pg_operator AS o ON o.oid IN (operator.oid, operator.oprcom, operator.oprnegate)
                CROSS JOIN LATERAL pg_catalog.unnest(ARRAY[o.oprcode::pg_catalog.oid, o.oprrest::pg_catalog.oid, o.oprjoin::pg_catalog.oid]) AS f(oid)
            WHERE f.oid <> 0
        ), candidate AS (
            SELECT used.* FROM used
            UNION
            SELECT used.kind, used.relation, used.part, used.classid, q.oid
            FROM used JOIN pg_catalog.pg_proc AS p ON used.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND p.oid = used.objid
                JOIN pg_catalog.pg_proc AS q ON q.proname = p.proname AND q.pronamespace = p.pronamespace
            UNION
            SELECT used.kind, used.relation, used.part, used.classid, q.oid
            FROM used JOIN pg_catalog.pg_operator AS o ON used.classid = 'pg_catalog.pg_operator'::pg_catalog.regclass AND o.oid = used.objid
                JOIN pg_catalog.pg_operator AS q ON q.oprname = o.oprname AND q.oprnamespace = o.oprnamespace
        ), owned AS (
            SELECT used.*, coalesce(p.proowner, o.oprowner, t.typowner, l.collowner) AS owner,
                coalesce(p.pronamespace, o.oprnamespace, t.typnamespace, l.collnamespace) AS namespace
            FROM candidate AS used
                LEFT JOIN pg_catalog.pg_proc AS p ON used.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND p.oid = used.objid
                LEFT JOIN pg_catalog.pg_operator AS o ON used.classid = 'pg_catalog.pg_operator'::pg_catalog.regclass AND o.oid = used.objid
                LEFT JOIN pg_catalog.pg_type AS t ON used.classid = 'pg_catalog.pg_type'::pg_catalog.regclass AND t.oid = used.objid
                LEFT JOIN pg_catalog.pg_collation AS l ON used.classid = 'pg_catalog.pg_collation'::pg_catalog.regclass AND l.oid = used.objid
        ), judged AS (
            SELECT kind, relation, part, pg_catalog.pg_describe_object(classid, objid, 0) AS object, owner, namespace,
                classid IN ('pg_catalog.pg_proc'::pg_catalog.regclass, 'pg_catalog.pg_operator'::pg_catalog.regclass) AS overloadable
            FROM owned WHERE owner IS NOT NULL
            UNION ALL
            SELECT 'search_path', '', '', 'schema ' || pg_catalog.quote_ident(n.nspname), n.nspowner, n.oid, true
            FROM pg_catalog.unnest(pg_catalog.current_schemas(false)) AS s(name) JOIN pg_catalog.pg_namespace AS n ON n.nspname = s.name
            WHERE \(raw: searchPath ? "true" : "false") AND n.oid <> pg_catalog.pg_my_temp_schema()
        ), verdict AS (
            SELECT judged.*, pg_catalog.pg_get_userbyid(owner)::text AS owner_name,
                EXISTS (SELECT FROM pg_catalog.pg_roles AS r
                        WHERE (r.oid = judged.owner OR (pg_catalog.pg_get_userbyid(judged.owner) = 'pg_database_owner'
                                   AND r.oid = (SELECT datdba FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database())))
                            AND (r.rolsuper OR r.rolname = current_user)) AS trusted_owner,
                (SELECT r.rolname::text FROM pg_catalog.pg_roles AS r
                 WHERE judged.overloadable AND NOT r.rolsuper AND r.rolname <> current_user AND r.rolname <> 'pg_database_owner'
                     AND pg_catalog.has_schema_privilege(r.oid, judged.namespace, 'CREATE')
                 ORDER BY r.rolname LIMIT 1) AS creator
            FROM judged
        )
        SELECT DISTINCT kind, relation, part, object, owner_name, trusted_owner, creator, n.nspname::text
        FROM verdict JOIN pg_catalog.pg_namespace AS n ON n.oid = verdict.namespace
        WHERE NOT trusted_owner OR creator IS NOT NULL
        ORDER BY kind, relation, part, object
        """
    }
}
