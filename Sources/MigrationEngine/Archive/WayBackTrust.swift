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

    /// For each view: whether anything in its parsed rule is not IMMUTABLE or lies outside the
    /// temporary schema. A cast through text (CoerceViaIO) names no function: where there is one,
    /// every type the view uses must read and print its values immutably.
    static let verdicts: SQL = """
        WITH view AS (
            SELECT c.relname::text AS name, r.ev_action::text AS tree
            FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_rewrite AS r ON r.ev_class = c.oid
            WHERE c.relnamespace = pg_catalog.pg_my_temp_schema() AND c.relkind = 'v' AND c.relname LIKE '#way back %'
        ), ref AS (
            SELECT view.name, m[1] AS kind, m[2]::oid AS oid
            FROM view, pg_catalog.regexp_matches(view.tree, ':(funcid|opfuncid|aggfnoid|winfnoid|opno|eqop|sortop|relid|vartype|consttype|funcresulttype|opresulttype|resulttype|casetype|coalescetype|minmaxtype|array_typeid|row_typeid|paramtype|aggtype|wintype|type) ([0-9]+)', 'g') AS m
        )
        SELECT view.name,
            view.tree ~ '[{](SQLVALUEFUNCTION|NEXTVALUEEXPR|PARAM|CURRENTOFEXPR)[ }]'
            OR EXISTS (SELECT FROM ref JOIN pg_catalog.pg_proc AS p ON p.oid = ref.oid
                       WHERE ref.name = view.name AND ref.kind IN ('funcid', 'opfuncid', 'aggfnoid', 'winfnoid') AND p.provolatile <> 'i')
            OR EXISTS (SELECT FROM ref JOIN pg_catalog.pg_operator AS o ON o.oid = ref.oid JOIN pg_catalog.pg_proc AS p ON p.oid = o.oprcode
                       WHERE ref.name = view.name AND ref.kind IN ('opno', 'eqop', 'sortop') AND p.provolatile <> 'i')
            OR EXISTS (SELECT FROM ref JOIN pg_catalog.pg_class AS c ON c.oid = ref.oid
                       WHERE ref.name = view.name AND ref.kind = 'relid' AND c.relnamespace <> pg_catalog.pg_my_temp_schema())
            OR (view.tree ~ '[{]COERCEVIAIO ' AND EXISTS (
                       SELECT FROM ref JOIN pg_catalog.pg_type AS t ON t.oid = ref.oid
                           JOIN pg_catalog.pg_proc AS i ON i.oid = t.typinput JOIN pg_catalog.pg_proc AS o ON o.oid = t.typoutput
                       WHERE ref.name = view.name AND ref.kind NOT IN ('funcid', 'opfuncid', 'aggfnoid', 'winfnoid', 'opno', 'eqop', 'sortop', 'relid')
                           AND (i.provolatile <> 'i' OR o.provolatile <> 'i')))
        FROM view
        """

    /// The proofs PostgreSQL vouches for, by table (their ``WayBackProof/table``), asked on
    /// `connection` inside the tenant's transaction, within a savepoint rolled back before it
    /// returns: nothing of it stays. A statement PostgreSQL rejects (an expression that names a
    /// table the tenant does not have, a missing privilege) vouches for none.
    func trustedTables(on connection: Connection) throws -> Set<String> {
        guard !proofs.isEmpty else { return [] }
        // What is queued belongs before the savepoint; its failure is not the proof's to judge.
        try connection.sendQueuedStatements()
        struct Verdict: Error { let trusted: Set<String> }
        do {
            try connection.savepoint { connection in
                let owners = ExpressionTrust.verdicts(in: "pg_catalog.pg_my_temp_schema()", searchPath: false)
                let statements = (statements + [Self.verdicts, owners]).map { Statement(inlining: $0, schema: "pg_temp") }
                let outcome = try connection.pipelineUntilFailure(statements)
                guard outcome.failure == nil, outcome.results.count == statements.count else {
                    connection.logger.debug("no proof by the way back: \(outcome.failure.map { "\($0)" } ?? "no verdict")")
                    throw Verdict(trusted: [])
                }
                // (A view using what an untrusted role controls: the way up would run it as the migrator.)
                let untrusted = Set(try outcome.results[statements.count - 1].map { try $0.decode(String.self, at: 1) })
                var trusted: Set<String> = []
                for row in outcome.results[statements.count - 2] where try row.decode(Bool?.self, at: 1) == false {
                    let name = try row.decode(String.self, at: 0)
                    guard !untrusted.contains(name) else { continue }
                    if let index = proofs.indices.first(where: { Self.viewName($0) == name }) { trusted.insert(proofs[index].table) }
                }
                throw Verdict(trusted: trusted)
            }
        } catch let verdict as Verdict {
            return verdict.trusted
        }
        return []
    }
}

extension ArchivePlan {
    /// The tables whose proofs PostgreSQL vouches for (``WayBackTrust``), asked on `connection`:
    /// a run asks once per step (``StepMemory/trustedProofs(of:on:)``).
    func trustedProofs(on connection: Connection) throws -> Set<String> {
        try WayBackTrust(proofs: proofs, destination: destinationSchema).trustedTables(on: connection)
    }
}
