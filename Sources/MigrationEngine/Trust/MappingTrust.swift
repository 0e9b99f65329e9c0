import LibPQ
import TypedSQL

/// Whether PostgreSQL resolves a mapped step's SQL expressions (attribute values, filters,
/// `distinct:` keys and orders, relationship key paths, the `rows:` of the mappings' and the
/// policies' `loses:`) only to objects no untrusted role controls, asked before they run.
///
/// A mapping model is trusted code, but what its names resolve to is not its own: a
/// `public.slug(source.name)` calls whatever function of that name and the best matching
/// argument types exists when the step runs, and a role that owns that function, or may create
/// objects in `public`, can make it anything (`ALTER ROLE app SUPERUSER`, run as the migrator).
/// So the expressions are judged as the model's own are (``ExpressionTrust``): each entity
/// mapping's expressions become a temporary view over the tenant's tables as they are while the
/// mappings run (made, not run), within a savepoint always rolled back, and every function,
/// operator, type and collation the views use must be owned by a superuser or the migrator, in a
/// schema no other role may create in; and every relation they read outside the tenant's schema
/// (`public.lookup`: a view runs its functions as whoever reads it) must be owned by a superuser
/// or the migrator. Anything else is refused with ``UntrustedExpression`` (42501) before the step
/// writes a row.
///
/// The verdict depends on the step and on shared objects, not on the tenant: a run asks once per
/// step (``StepMemory/requireTrustedMappings(_:on:)``).
struct MappingTrust {
    let probes: [MappingCompiler.Probe]

    /// The probes of `mapped`'s entity mappings, with what their `loses:` and their policies'
    /// say of the rows lost.
    init(_ mapped: StepProgram.Mapped) throws {
        let model = mapped.model
        probes = try model.entityMappings.compactMap { mapping in
            let losses = mapping.loses + (mapping.policy.flatMap { model.policies.makePolicy(named: $0) }?.loses ?? [])
            return try mapped.compiler.probe(of: mapping, file: model.file, losses: losses)
        }
    }

    /// The name of the view made of `probes[index]` (no model table can have it).
    static func viewName(_ index: Int) -> String { "#mapping \(index)" }

    /// Raises ``UntrustedExpression`` when an expression uses an object an untrusted role
    /// controls; PostgreSQL's own error when it cannot read one (as the step would fail). Asked in
    /// `schema` on `connection`, inside the tenant's transaction, within a savepoint rolled back
    /// before it returns: nothing of it stays.
    func check(inSchema schema: String, on connection: Connection) throws {
        guard !probes.isEmpty else { return }
        try connection.sendQueuedStatements()
        struct Verdict: Error { let findings: [UntrustedExpression.Finding] }
        do {
            try connection.savepoint { connection in
                var pipeline = Pipeline()
                pipeline.add(probes.enumerated().map { index, probe in
                    Statement(inlining: "CREATE TEMPORARY VIEW \(id: Self.viewName(index)) AS \(probe.query)", schema: schema)
                })
                let verdicts = pipeline.add(Statement(
                    inlining: ExpressionTrust.verdicts(in: "pg_catalog.pg_my_temp_schema()", searchPath: true), schema: schema
                ))
                let relations = pipeline.add(Statement(inlining: Self.relationVerdicts(outside: schema), schema: schema))
                let outcome = try connection.pipeline(pipeline)
                let used = try outcome[verdicts]?.map(finding(from:)) ?? []
                throw Verdict(findings: used + (try outcome[relations]?.map(relationFinding(from:)) ?? []))
            }
        } catch let verdict as Verdict {
            guard verdict.findings.isEmpty else { throw UntrustedExpression(findings: verdict.findings) }
        }
    }

    /// The relations outside `schema` (the tenant's, or the run's shadow) that the probe views read
    /// and that a role other than a superuser or the migrator owns, one row each: the view, the
    /// relation as `pg_describe_object` names it, its owner, its schema. Such a relation (a view
    /// calling its owner's function, a table whose policies do) runs its owner's code as whoever
    /// reads it: the migrator.
    static func relationVerdicts(outside schema: String) -> SQL {
        """
        SELECT DISTINCT v.relname::text, pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, c.oid, 0),
            pg_catalog.pg_get_userbyid(c.relowner)::text, n.nspname::text
        FROM pg_catalog.pg_depend AS d JOIN pg_catalog.pg_rewrite AS r ON r.oid = d.objid
            JOIN pg_catalog.pg_class AS v ON v.oid = r.ev_class JOIN pg_catalog.pg_class AS c ON c.oid = d.refobjid
            JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
        WHERE d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
            AND v.relnamespace = pg_catalog.pg_my_temp_schema() AND c.oid <> v.oid AND n.nspname <> \(literal: schema)
            AND NOT EXISTS (SELECT FROM pg_catalog.pg_roles AS o WHERE o.oid = c.relowner AND (o.rolsuper OR o.rolname = current_user))
        ORDER BY 1, 2
        """
    }

    /// One row of ``relationVerdicts(outside:)`` as the mapping that reads the relation.
    private func relationFinding(from row: Row) throws -> UntrustedExpression.Finding {
        let view = try row.decode(String.self, at: 0)
        let place = probes.indices.first { Self.viewName($0) == view }.map { probes[$0].place } ?? "a mapping"
        return UntrustedExpression.Finding(place: place, object: try row.decode(String.self, at: 1), owner: try row.decode(String.self, at: 2),
                                           ownerIsTrusted: false, creator: nil, schema: try row.decode(String.self, at: 3))
    }

    /// One row of ``ExpressionTrust/verdicts(in:searchPath:rules:)`` as the mapping that uses it.
    private func finding(from row: Row) throws -> UntrustedExpression.Finding {
        let relation = try row.decode(String.self, at: 1)
        let index = probes.indices.first { Self.viewName($0) == relation }
        let place = index.map { probes[$0].place } ?? "the session's search_path, used by the mappings' expressions,"
        return try ExpressionTrust.finding(place: place, row)
    }
}
