import LibPQ
import TypedSQL

/// `ANALYZE` and `VACUUM` from a step hook (``StepHooks``): PostgreSQL resolves them only when it
/// runs them, so they cannot be the body of the probe function; but they name relations only, and
/// run no code but what the relations themselves carry (their indexes' and extended statistics'
/// expressions, their column types' analysis and comparison functions). So they are judged by
/// what they name: every relation must resolve (`to_regclass`, on the session's `search_path`),
/// lie in the tenant's schema, be a table, a partitioned table or a materialized view owned by a
/// superuser or the migrator (as must its partitions), and the functions its indexes and
/// statistics use and the types of its columns must be owned by one too. Naming no relation (every
/// table the migrator may analyze, in any schema) is refused.
extension PolicyStatementTrust {
    /// Raises ``UnjudgedPolicyStatement`` unless `statement` (`ANALYZE` or `VACUUM`) names only
    /// relations the migrator may maintain as above. One round trip.
    func judgeMaintenance(_ statement: Statement, place: String, on connection: Connection) throws {
        let shown = Self.shown(statement.sql)
        guard let names = Self.maintainedRelations(of: statement.sql) else {
            throw UnjudgedPolicyStatement(place: place, statement: shown, reason: "it is not of the form `ANALYZE [(options)] relation [(columns)], …`",
                                          allowance: UnjudgedPolicyStatement.hookAllowance)
        }
        guard !names.isEmpty else {
            throw UnjudgedPolicyStatement(place: place, statement: shown, reason: "it names no relation, so it would maintain every table the migrator may, in any schema",
                                          allowance: UnjudgedPolicyStatement.hookAllowance)
        }
        let rows = try connection.execute(Statement(inlining: Self.maintenanceVerdicts(names, schema: schema), schema: schema))
        let refusals = try rows.compactMap { try $0.decode(String?.self, at: 0) }
        guard refusals.isEmpty else {
            throw UnjudgedPolicyStatement(place: place, statement: shown, reason: refusals.joined(separator: "; "), allowance: UnjudgedPolicyStatement.hookAllowance)
        }
    }

    /// One row per name in `names`: why the migrator may not maintain it, or NULL.
    static func maintenanceVerdicts(_ names: [String], schema: String) -> SQL {
        let values: [SQL] = names.enumerated().map { "(\(int: $0.offset), \(literal: $0.element))" }
        let trusted = { (role: SQL) -> SQL in "EXISTS (SELECT FROM pg_catalog.pg_roles AS o WHERE o.oid = \(role) AND (o.rolsuper OR o.rolname = current_user))" }
        let owner = { (role: SQL) -> SQL in "' (owned by ' || pg_catalog.pg_get_userbyid(\(role))::text || ')'" }
        // The relation and its partitions.
        let maintained: SQL = "(SELECT c.oid UNION SELECT tree.relid FROM pg_catalog.pg_partition_tree(c.oid) AS tree)"
        return """
            SELECT CASE
                WHEN c.oid IS NULL THEN pg_catalog.quote_literal(r.name) || ' names no relation'
                WHEN ns.nspname <> \(literal: schema) THEN pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, c.oid, 0)
                    || \(owner("c.relowner")) || ' lies outside the tenant''s schema'
                WHEN c.relkind NOT IN ('r', 'p', 'm') THEN pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, c.oid, 0)
                    || ' is not a table or a materialized view'
                ELSE (SELECT pg_catalog.string_agg(u.what, ', ' ORDER BY u.what) FROM (
                    SELECT pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, t.oid, 0) || \(owner("t.relowner")) AS what
                    FROM pg_catalog.pg_class AS t WHERE t.oid IN \(maintained) AND NOT \(trusted("t.relowner"))
                    UNION
                    SELECT pg_catalog.pg_describe_object(d.refclassid, d.refobjid, 0) || \(owner("p.proowner")) || ', which an index or statistics of '
                        || pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, c.oid, 0) || ' uses'
                    FROM pg_catalog.pg_depend AS d JOIN pg_catalog.pg_proc AS p ON p.oid = d.refobjid
                    WHERE d.refclassid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND NOT \(trusted("p.proowner"))
                        AND ((d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
                                AND d.objid IN (SELECT i.indexrelid FROM pg_catalog.pg_index AS i WHERE i.indrelid IN \(maintained)))
                            OR (d.classid = 'pg_catalog.pg_statistic_ext'::pg_catalog.regclass
                                AND d.objid IN (SELECT s.oid FROM pg_catalog.pg_statistic_ext AS s WHERE s.stxrelid IN \(maintained))))
                    UNION
                    SELECT 'type ' || pg_catalog.format_type(y.oid, NULL) || \(owner("y.typowner")) || ', a column''s of '
                        || pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, a.attrelid, 0)
                    FROM pg_catalog.pg_attribute AS a JOIN pg_catalog.pg_type AS y ON y.oid = a.atttypid
                    WHERE a.attrelid IN \(maintained) AND a.attnum > 0 AND NOT a.attisdropped AND NOT \(trusted("y.typowner"))
                ) AS u)
            END
            FROM (VALUES \(values, joinedBy: ", ")) AS r(n, name)
                LEFT JOIN pg_catalog.pg_class AS c ON c.oid = pg_catalog.to_regclass(r.name)
                LEFT JOIN pg_catalog.pg_namespace AS ns ON ns.oid = c.relnamespace
            ORDER BY r.n
            """
    }

    /// The relations an `ANALYZE` or `VACUUM` names, as written (`ANALYZE [(options)] [VERBOSE]
    /// name [(columns)], …`), empty when it names none, nil when it is not of that form.
    static func maintainedRelations(of sql: String) -> [String]? {
        let words = Array(SQLWords(sql))
        let isName = { (word: SQLWords.Word) in word.text == "\"" || word.text.first.map { $0.isLetter || $0 == "_" } == true }
        var index = 1
        if index < words.count, words[index].text == "(" {
            guard let close = words[index...].firstIndex(where: { $0.text == ")" }) else { return nil }
            index = close + 1
        }
        while index < words.count, ["VERBOSE", "FULL", "FREEZE", "ANALYZE", "ANALYSE"].contains(words[index].text) { index += 1 }
        var names: [String] = []
        while index < words.count, words[index].text != ";" {
            guard isName(words[index]) else { return nil }
            let start = words[index].start
            var end = words[index].end
            index += 1
            while index + 1 < words.count, words[index].text == ".", isName(words[index + 1]) {
                end = words[index + 1].end
                index += 2
            }
            names.append(String(sql[start..<end]))
            if index < words.count, words[index].text == "(" {
                guard let close = words[index...].firstIndex(where: { $0.text == ")" }), close > index + 1,
                      words[(index + 1)..<close].allSatisfy({ isName($0) || $0.text == "," }) else { return nil }
                index = close + 1
            }
            if index < words.count, words[index].text == "," {
                index += 1
                guard index < words.count, isName(words[index]) else { return nil }
            } else if index < words.count, words[index].text != ";" {
                return nil
            }
        }
        guard words[index...].allSatisfy({ $0.text == ";" }) else { return nil }
        return names
    }
}
