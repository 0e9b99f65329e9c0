import LibPQ
import TypedSQL

/// Whether PostgreSQL resolves a mapped step's SQL expressions (attribute values, filters,
/// `distinct:` keys and orders, relationship key paths) only to objects no untrusted role
/// controls, asked before they run.
///
/// A mapping model is trusted code, but what its names resolve to is not its own: a
/// `public.slug(source.name)` calls whatever function of that name and the best matching
/// argument types exists when the step runs, and a role that owns that function, or may create
/// objects in `public`, can make it anything (`ALTER ROLE app SUPERUSER`, run as the migrator).
/// So the expressions are judged as the model's own are (``ExpressionTrust``): each entity
/// mapping's expressions become a temporary view over the tenant's tables as they are while the
/// mappings run (made, not run), within a savepoint always rolled back, and every function,
/// operator, type and collation the views use must be owned by a superuser or the migrator, in a
/// schema no other role may create in. Anything else is refused with ``UntrustedExpression``
/// (42501) before the step writes a row.
///
/// The verdict depends on the step and on shared objects, not on the tenant: a run asks once per
/// step (``StepMemory/requireTrustedMappings(_:on:)``).
struct MappingTrust {
    let probes: [MappingCompiler.Probe]

    /// The probes of `mapped`'s entity mappings.
    init(_ mapped: StepProgram.Mapped) throws {
        probes = try mapped.model.entityMappings.compactMap { try mapped.compiler.probe(of: $0, file: mapped.model.file) }
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
                let views = probes.enumerated().map { index, probe in
                    Statement(inlining: "CREATE TEMPORARY VIEW \(id: Self.viewName(index)) AS \(probe.query)", schema: schema)
                }
                let verdicts = Statement(inlining: ExpressionTrust.verdicts(in: "pg_catalog.pg_my_temp_schema()", searchPath: true), schema: schema)
                let outcome = try connection.pipelineUntilFailure(views + [verdicts])
                if let failure = outcome.failure { throw failure }
                throw Verdict(findings: try outcome.results.last!.map(finding(from:)))
            }
        } catch let verdict as Verdict {
            guard verdict.findings.isEmpty else { throw UntrustedExpression(findings: verdict.findings) }
        }
    }

    /// One row of ``ExpressionTrust/verdicts(in:searchPath:rules:)`` as the mapping that uses it.
    private func finding(from row: Row) throws -> UntrustedExpression.Finding {
        let relation = try row.decode(String.self, at: 1)
        let index = probes.indices.first { Self.viewName($0) == relation }
        let place = index.map { probes[$0].place } ?? "the session's search_path, used by the mappings' expressions,"
        return try ExpressionTrust.finding(place: place, row)
    }
}
