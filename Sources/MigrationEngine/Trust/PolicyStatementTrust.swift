import Foundation
import LibPQ
import TypedSQL

/// Whether PostgreSQL resolves the SQL a Swift policy runs only to objects no untrusted role
/// controls, asked before each distinct statement first runs.
///
/// A policy is trusted code, but the names in its SQL are resolved when it runs, in a database
/// where an untrusted role may own what they resolve to: `public.code_for(r.servings)` calls
/// whatever `public.code_for` best matches an `integer` column, an `OPERATOR(public.===)` whatever
/// operator best matches its operands, and a view runs its functions as whoever reads it. So
/// every statement a policy sends, through ``PolicyContext/execute(_:_:)`` or the raw connection
/// (judged at the ``Connection`` while the policy's code runs), is judged as the mappings'
/// expressions are (``MappingTrust``), before it is sent: within a savepoint that is always
/// rolled back, it becomes the body of a temporary SQL-standard function (`BEGIN ATOMIC …
/// END`, its parameters typed as PostgreSQL describes them), which PostgreSQL resolves exactly as
/// it would the statement, without running it, and records in `pg_depend`. Every function,
/// operator, type and collation it uses must be owned by a superuser or the migrator, functions
/// and operators in a schema no other role may create in; every relation it reads or writes
/// outside the tenant's schema, and every view, materialized view or foreign table in it, must be
/// owned by a superuser or the migrator. Anything else is refused with ``UntrustedExpression``
/// (42501), naming the mapping, the policy, the statement, the object and its owner; the
/// statement never runs.
///
/// A statement PostgreSQL resolves only when it runs it (a utility statement: DDL, `COPY`,
/// `CALL`, `DO`, `ANALYZE`, `EXPLAIN`, `PREPARE`, …) cannot be judged, and is refused
/// (``UnjudgedPolicyStatement``), but for those that resolve no name to code: savepoints, cursor
/// movement (`FETCH`, `MOVE`, `CLOSE`), `LOCK`, `SET`, `RESET` and `SHOW`, and `DECLARE … CURSOR
/// FOR <query>`, whose query is judged.
///
/// One instance serves one step of one tenant (its ``PolicySession``): a statement text judged
/// once is not judged again (a policy that runs one statement per row costs one judgement), until
/// the policy runs a statement that may change the session's settings (`SET`, `RESET`,
/// `set_config`), which the verdicts depend on (`search_path`).
final class PolicyStatementTrust {
    /// The tenant's schema (or the online run's shadow), whose tables are judged elsewhere.
    let schema: String
    /// The statements judged trusted, by text and parameter types.
    private var passed: Set<Judged> = []
    /// Whether a statement sent since may have changed the session's settings.
    private var settingsMayHaveChanged = false

    init(schema: String) {
        self.schema = schema
    }

    /// The name of the probe function.
    static let probeName = "#policy statement"

    private struct Judged: Hashable {
        let sql: String
        let types: [UInt32]
    }

    /// The judge of the statements `place` (`the policy (mapping file F)`) sends; the caller's
    /// error names the mapping and the policy.
    func judge(for place: String) -> any StatementJudge {
        Judge(trust: self, place: place, isHook: false)
    }

    /// The judge of the statements a step hook (`the didMigrate hook of step v2 → v3`) sends: as a
    /// policy's, and `ANALYZE` and `VACUUM` of the tenant's trusted tables
    /// (``judgeMaintenance(_:place:on:)``).
    func hookJudge(for place: String) -> any StatementJudge {
        Judge(trust: self, place: place, isHook: true)
    }

    private struct Judge: StatementJudge {
        let trust: PolicyStatementTrust
        let place: String
        let isHook: Bool

        func judge(_ statement: Statement, asScript: Bool, on connection: Connection) throws {
            try trust.judge(statement, asScript: asScript, place: place, isHook: isHook, on: connection)
        }
    }

    /// Raises ``UntrustedExpression`` when `statement` uses an object an untrusted role controls,
    /// ``UnjudgedPolicyStatement`` when PostgreSQL cannot resolve it without running it, and
    /// PostgreSQL's own error when it cannot read it (as running it would).
    func judge(_ statement: Statement, asScript: Bool, place: String, isHook: Bool = false, on connection: Connection) throws {
        if settingsMayHaveChanged {
            passed = []
            settingsMayHaveChanged = false
        }
        let words = Self.leadingWords(of: statement.sql, count: 2)
        let first = words.first ?? ""
        // What runs after it is judged afresh (even when it was judged before).
        if ["SET", "RESET"].contains(first) || statement.sql.lowercased().contains("set_config") { settingsMayHaveChanged = true }
        let key = Judged(sql: statement.sql, types: statement.binds.map(\.typeOID))
        guard !passed.contains(key) else { return }
        if !asScript, Self.resolvesNoCode.contains(first) || (first == "ROLLBACK" && words.dropFirst().first == "TO") {
            passed.insert(key)
            return
        }
        if !asScript, first == "DECLARE", let query = Self.cursorQuery(of: statement.sql) {
            try judge(Statement(unsafeSQL: query, binds: statement.binds), asScript: false, place: place, isHook: isHook, on: connection)
            passed.insert(key)
            return
        }
        if isHook, !asScript, ["ANALYZE", "ANALYSE", "VACUUM"].contains(first) {
            try judgeMaintenance(statement, place: place, on: connection)
            passed.insert(key)
            return
        }
        try ask(statement, place: place, isHook: isHook, on: connection)
        passed.insert(key)
    }

    /// Statements that resolve no name to code, sent alone (not in a script, where others may follow).
    static let resolvesNoCode: Set<String> = ["SAVEPOINT", "RELEASE", "FETCH", "MOVE", "CLOSE", "LOCK", "SET", "RESET", "SHOW"]

    /// Makes `statement` the body of the probe function in a savepoint rolled back before it
    /// returns, and judges what it uses: one round trip (in a transaction), two more to describe
    /// its parameters when it has any, one more to name their types unless PostgreSQL's own.
    private func ask(_ statement: Statement, place: String, isHook: Bool, on connection: Connection) throws {
        guard connection.isInTransaction else {
            return try connection.transaction { try ask(statement, place: place, isHook: isHook, on: $0) }
        }
        let types = statement.binds.isEmpty ? [] : try typeNames(try connection.parameterTypes(of: statement), on: connection)
        let shown = Self.shown(statement.sql)
        let savepoint: SQL = "\(id: "tm_policy_statement")"
        let probe: SQL = """
            CREATE FUNCTION pg_temp.\(id: Self.probeName)(\(types.map { "\(raw: $0)" as SQL }, joinedBy: ", ")) RETURNS void LANGUAGE sql
            BEGIN ATOMIC
            \(raw: statement.sql)
            ; END
            """
        let undo: [Statement] = ["ROLLBACK TO SAVEPOINT \(savepoint)", "RELEASE SAVEPOINT \(savepoint)"].map { Statement(inlining: $0, schema: schema) }
        var pipeline = Pipeline()
        pipeline.add(Statement(inlining: "SAVEPOINT \(savepoint)", schema: schema))
        let made = pipeline.add(Statement(inlining: probe, schema: schema))
        let uses = pipeline.add(Statement(inlining: ExpressionTrust.verdicts(in: "pg_catalog.pg_my_temp_schema()", searchPath: true, functions: true), schema: schema))
        let reads = pipeline.add(Statement(inlining: Self.relationVerdicts(outside: schema), schema: schema))
        pipeline.add(undo)
        let outcome = try connection.pipelineUntilFailure(pipeline)
        if let failure = outcome.failure {
            _ = try connection.pipeline(undo)
            guard outcome.failed(at: made), Self.isUnjudgeable(failure) else { throw failure }
            throw UnjudgedPolicyStatement(place: place, statement: shown, reason: failure.message,
                                          allowance: isHook ? UnjudgedPolicyStatement.hookAllowance : UnjudgedPolicyStatement.policyAllowance)
        }
        let which = "\(place) runs `\(shown)`, which"
        let used = try outcome[uses]?.map { try ExpressionTrust.finding(place: which, $0) } ?? []
        let read = try outcome[reads]?.map { row in
            UntrustedExpression.Finding(place: which, object: try row.decode(String.self, at: 0), owner: try row.decode(String.self, at: 1),
                                        ownerIsTrusted: false, creator: nil, schema: try row.decode(String.self, at: 2))
        } ?? []
        guard used.isEmpty, read.isEmpty else { throw UntrustedExpression(findings: used + read) }
    }

    /// Whether PostgreSQL refused the probe because the statement cannot be a function's body: a
    /// utility statement (0A000), `SELECT … INTO` (42601, "not allowed here").
    static func isUnjudgeable(_ failure: PQError) -> Bool {
        failure.sqlState == "0A000" || (failure.sqlState == .syntaxError && failure.message.contains("not allowed here"))
    }

    /// The names of `types` (OIDs), as a function's parameters take them: one query, when any is
    /// not one of PostgreSQL's own that the runtime names itself.
    private func typeNames(_ types: [UInt32], on connection: Connection) throws -> [String] {
        if let known = Optional(types.compactMap { Self.builtinTypeNames[$0] }), known.count == types.count { return known }
        let rows = try connection.execute("""
            SELECT pg_catalog.format_type(t.oid, NULL) FROM pg_catalog.unnest(\(literal: "{" + types.map(String.init).joined(separator: ",") + "}")::pg_catalog.oid[]) WITH ORDINALITY AS t(oid, n)
            ORDER BY t.n
            """)
        return try rows.map { try $0.decode(String.self, at: 0) }
    }

    /// PostgreSQL's own types the runtime binds, by OID (fixed in every release).
    static let builtinTypeNames: [UInt32: String] = [
        16: "pg_catalog.bool", 17: "pg_catalog.bytea", 20: "pg_catalog.int8", 21: "pg_catalog.int2", 23: "pg_catalog.int4", 25: "pg_catalog.text",
        700: "pg_catalog.float4", 701: "pg_catalog.float8", 1043: "pg_catalog.varchar", 1082: "pg_catalog.date", 1114: "pg_catalog.timestamp",
        1184: "pg_catalog.timestamptz", 1700: "pg_catalog.numeric", 2950: "pg_catalog.uuid", 114: "pg_catalog.json", 3802: "pg_catalog.jsonb",
    ]

    /// The relations the probe function uses that a role other than a superuser or the migrator
    /// owns, outside `schema` (the tenant's, or the run's shadow), or in it but not a table or a
    /// sequence (a view runs its functions as whoever reads it), one row each: the relation as
    /// `pg_describe_object` names it, its owner, its schema.
    static func relationVerdicts(outside schema: String) -> SQL {
        """
        SELECT DISTINCT pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, c.oid, 0),
            pg_catalog.pg_get_userbyid(c.relowner)::text, n.nspname::text
        FROM pg_catalog.pg_depend AS d JOIN pg_catalog.pg_proc AS p ON p.oid = d.objid
            JOIN pg_catalog.pg_class AS c ON c.oid = d.refobjid JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
        WHERE d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
            AND p.pronamespace = pg_catalog.pg_my_temp_schema() AND p.proname = \(literal: probeName)
            AND (n.nspname <> \(literal: schema) OR c.relkind NOT IN ('r', 'p', 'S'))
            AND NOT EXISTS (SELECT FROM pg_catalog.pg_roles AS o WHERE o.oid = c.relowner AND (o.rolsuper OR o.rolname = current_user))
        ORDER BY 1
        """
    }

    /// The query of `DECLARE name [options] CURSOR [WITH[OUT] HOLD] FOR query`, nil when it is
    /// not of that form.
    static func cursorQuery(of sql: String) -> String? {
        let scanner = SQLWords(sql)
        var sawCursor = false
        for word in scanner {
            if word.text == "CURSOR" { sawCursor = true }
            if sawCursor, word.text == "FOR" { return String(sql[word.end...]) }
        }
        return nil
    }

    /// The first `count` words of `sql` (upper-cased), after blanks and comments.
    static func leadingWords(of sql: String, count: Int) -> [String] {
        Array(SQLWords(sql).prefix(count).map(\.text))
    }

    /// `sql` shortened for a message.
    static func shown(_ sql: String) -> String {
        let line = sql.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        return line.count > 160 ? String(line.prefix(157)) + "…" : line
    }
}
