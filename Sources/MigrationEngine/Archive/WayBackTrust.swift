import EntityModel
import LibPQ
import TypedSQL

/// Whether PostgreSQL vouches for what a step's proofs by the way back derive (``WayBackProof``):
/// a proof assumes that the way back's expression gives at the way down what it gave at the way
/// up, which holds only where every function, operator and cast it uses is IMMUTABLE (not
/// `now()`, `current_user`, a cast through the session's TimeZone or DateStyle) and it reads
/// nothing but the tenant's own tables (not `public.country`, which may change in between).
///
/// The model cannot say this; PostgreSQL can. Within a savepoint that is always rolled back, the
/// step's destination tables are made as empty temporary tables, and each proof's expressions
/// (with its joins, filter and the cast to the column's type) become a temporary view over them;
/// the view's rewrite rule, as PostgreSQL parsed it, names every function, operator, type and
/// relation it uses by OID, and the catalog says which are immutable and where each relation
/// lives. A proof whose view cannot be made, or which uses anything else, is not made: its
/// columns are archived in every row, as without a proof. Nor is one that uses a function,
/// operator, type or collation an untrusted role controls (``ExpressionTrust``'s judgement): the
/// way up compares with it, which would run that role's code (IMMUTABLE is only its word) as the
/// migrator; the way down refuses it (``MappingTrust``).
///
/// The verdict depends only on the step and the catalog of shared objects, not on the tenant, so
/// a fleet run asks once per step (``ArchivePlan/trustedProofs(on:)``).
struct WayBackTrust {
    let proofs: [WayBackProof]
    /// The step's destination tables, as the proofs name them.
    let destination: RelationalSchema

    /// The name of the view made of `proof`'s expressions (no model table can have it).
    static func viewName(_ index: Int) -> String { "#way back \(index)" }

    /// The statements that make the temporary tables and views, for schema `pg_temp`.
    var statements: [SQL] {
        let tables: [SQL] = destination.tables.map { table in
            let columns = table.columns.map { "\(id: $0.name) \($0.type.sql)" as SQL }
            return "CREATE TEMPORARY TABLE \(table: table.name) (\(columns, joinedBy: ", "))"
        }
        let views: [SQL] = proofs.enumerated().map { index, proof in
            let columns = proof.columns.enumerated().map { "\($1.selects) AS \(id: "s\($0)"), \($1.value) AS \(id: "v\($0)")" as SQL }
            return "CREATE TEMPORARY VIEW \(table: Self.viewName(index)) AS SELECT \(columns, joinedBy: ", ") FROM \(proof.from)"
        }
        return tables + views
    }

    /// For each view: the first thing in its parsed rule that is not IMMUTABLE or lies outside the
    /// temporary schema, said for reports (NULL: nothing, the view is vouched for). A cast through
    /// text (CoerceViaIO) names no function: where there is one, every type the view uses must read
    /// and print its values immutably.
    static let verdicts: SQL = """
        WITH view AS (
            SELECT c.relname::text AS name, r.ev_action::text AS tree
            FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_rewrite AS r ON r.ev_class = c.oid
            WHERE c.relnamespace = pg_catalog.pg_my_temp_schema() AND c.relkind = 'v' AND c.relname LIKE '#way back %'
        ), ref AS (
            SELECT view.name, m[1] AS kind, m[2]::oid AS oid
            FROM view, pg_catalog.regexp_matches(view.tree, ':(funcid|opfuncid|aggfnoid|winfnoid|opno|eqop|sortop|relid|vartype|consttype|funcresulttype|opresulttype|resulttype|casetype|coalescetype|minmaxtype|array_typeid|row_typeid|paramtype|aggtype|wintype|type) ([0-9]+)', 'g') AS m
        )
        SELECT view.name, COALESCE(
            CASE WHEN view.tree ~ '[{](SQLVALUEFUNCTION|NEXTVALUEEXPR|PARAM|CURRENTOFEXPR)[ }]'
                THEN 'it reads a value of the session (current_user, current_timestamp, nextval, a parameter)' END,
            (SELECT 'it calls ' || p.oid::pg_catalog.regprocedure::text || ', which is not IMMUTABLE' FROM ref JOIN pg_catalog.pg_proc AS p ON p.oid = ref.oid
                       WHERE ref.name = view.name AND ref.kind IN ('funcid', 'opfuncid', 'aggfnoid', 'winfnoid') AND p.provolatile <> 'i' ORDER BY 1 LIMIT 1),
            (SELECT 'it uses the operator ' || o.oid::pg_catalog.regoperator::text || ', which is not IMMUTABLE'
                       FROM ref JOIN pg_catalog.pg_operator AS o ON o.oid = ref.oid JOIN pg_catalog.pg_proc AS p ON p.oid = o.oprcode
                       WHERE ref.name = view.name AND ref.kind IN ('opno', 'eqop', 'sortop') AND p.provolatile <> 'i' ORDER BY 1 LIMIT 1),
            (SELECT 'it reads ' || c.oid::pg_catalog.regclass::text || ', outside the tenant' FROM ref JOIN pg_catalog.pg_class AS c ON c.oid = ref.oid
                       WHERE ref.name = view.name AND ref.kind = 'relid' AND c.relnamespace <> pg_catalog.pg_my_temp_schema() ORDER BY 1 LIMIT 1),
            CASE WHEN view.tree ~ '[{]COERCEVIAIO ' AND EXISTS (
                       SELECT FROM ref JOIN pg_catalog.pg_type AS t ON t.oid = ref.oid
                           JOIN pg_catalog.pg_proc AS i ON i.oid = t.typinput JOIN pg_catalog.pg_proc AS o ON o.oid = t.typoutput
                       WHERE ref.name = view.name AND ref.kind NOT IN ('funcid', 'opfuncid', 'aggfnoid', 'winfnoid', 'opno', 'eqop', 'sortop', 'relid')
                           AND (i.provolatile <> 'i' OR o.provolatile <> 'i'))
                THEN 'it casts through text a value whose text depends on the session''s settings (TimeZone, DateStyle)' END)
        FROM view
        """

    /// The proofs PostgreSQL vouches for, by table (their ``WayBackProof/table``), asked on
    /// `connection` inside the tenant's transaction, within a savepoint rolled back before it
    /// returns: nothing of it stays. A statement PostgreSQL rejects (an expression that names a
    /// table the tenant does not have, a missing privilege) vouches for none.
    func trustedTables(on connection: Connection) throws -> Set<String> {
        try verdict(on: connection).trusted
    }

    /// What PostgreSQL said of the proofs: the tables it vouches for, and why it does not vouch
    /// for the others (by table, for reports: ``ArchiveFinding/reason``).
    struct Verdict: Sendable, Error {
        var trusted: Set<String> = []
        var withheld: [String: String] = [:]
    }

    /// ``Verdict`` of the proofs, asked as ``trustedTables(on:)`` says.
    func verdict(on connection: Connection) throws -> Verdict {
        guard !proofs.isEmpty else { return Verdict() }
        // What is queued belongs before the savepoint; its failure is not the proof's to judge.
        try connection.sendQueuedStatements()
        let tables = Set(proofs.map(\.table))
        do {
            try connection.savepoint { connection in
                var pipeline = Pipeline()
                pipeline.add(statements.map { Statement(inlining: $0, schema: "pg_temp") })
                let viewVerdicts = pipeline.add(Statement(inlining: Self.verdicts, schema: "pg_temp"))
                let owners = pipeline.add(Statement(
                    inlining: ExpressionTrust.verdicts(in: "pg_catalog.pg_my_temp_schema()", searchPath: false), schema: "pg_temp"
                ))
                let outcome = try connection.pipelineUntilFailure(pipeline)
                guard outcome.failure == nil, let viewRows = outcome[viewVerdicts], let ownerRows = outcome[owners] else {
                    connection.logger.debug("no proof by the way back: \(outcome.failure.map { "\($0)" } ?? "no verdict")")
                    let reason = "PostgreSQL could not parse it" + (outcome.failure.map { " (\($0))" } ?? "")
                    throw Verdict(withheld: Dictionary(uniqueKeysWithValues: tables.map { ($0, reason) }))
                }
                // (A view using what an untrusted role controls: the way up would run it as the migrator.)
                let untrusted = Set(try ownerRows.map { try $0.decode(String.self, at: 1) })
                var verdict = Verdict()
                for row in viewRows {
                    let name = try row.decode(String.self, at: 0)
                    guard let index = proofs.indices.first(where: { Self.viewName($0) == name }) else { continue }
                    let reason = try row.decode(String?.self, at: 1) ?? (untrusted.contains(name) ? "it uses an object a role the migrator does not trust controls" : nil)
                    if let reason { verdict.withheld[proofs[index].table] = verdict.withheld[proofs[index].table] ?? reason } else { verdict.trusted.insert(proofs[index].table) }
                }
                for table in tables where !verdict.trusted.contains(table) && verdict.withheld[table] == nil { verdict.withheld[table] = "PostgreSQL gave no verdict" }
                throw verdict
            }
        } catch let verdict as Verdict {
            return verdict
        }
        return Verdict(withheld: Dictionary(uniqueKeysWithValues: tables.map { ($0, "PostgreSQL gave no verdict") }))
    }
}

extension ArchivePlan {
    /// The tables whose proofs PostgreSQL vouches for (``WayBackTrust``), asked on `connection`:
    /// a run asks once per step (``StepMemory/trustedProofs(of:on:)``).
    func trustedProofs(on connection: Connection) throws -> WayBackTrust.Verdict {
        try WayBackTrust(proofs: proofs, destination: destinationSchema).verdict(on: connection)
    }
}
