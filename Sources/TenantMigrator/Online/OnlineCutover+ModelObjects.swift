import EntityModel
import LibPQ
import MigrationEngine
import TypedSQL

/// The model's own enum types and sequences at the cutover. The shadow's tables use the shadow's
/// types and draw from its sequences (ShadowTables+ModelObjects.swift), so these move with the
/// tables: the tenant's go to the retired schema with the old tables (which keep using them), the
/// shadow's come into the tenant's schema under the same names. The tenant's columns then use the
/// tenant's types, and its defaults draw from the tenant's sequences, as the app names them.
///
/// A sequence comes in where the tenant's stood at that moment (every value the app drew during
/// the run, even for rows it rolled back, stays drawn), with the tenant's one's rights. Moving the
/// tenant's sequence out takes its ACCESS EXCLUSIVE lock, so no session draws from it between the
/// reading of its position and the commit; a `nextval` that waited for it (it found the sequence
/// by name before the commit, so it draws from the retired one) then finds its rights
/// revoked with the retired tables' (``RetiredTables/revokeGrants(in:on:)``), and the old sequence
/// ends where it stands (``exhaust(_:)``), so such a draw fails, whatever the role, rather than
/// hand out a value the tenant's new sequence will give again.
extension OnlineCutover {
    func swapModelObjects() throws {
        let source = context.plan.plan.source.relationalSchema(), destination = context.plan.plan.destination.relationalSchema()
        var moves: [Statement] = []
        for type in source.enumTypes {
            moves.append(Statement("ALTER TYPE \(schema: schemas.tenant, table: type.name) SET SCHEMA \(id: schemas.retired)"))
        }
        for type in destination.enumTypes {
            moves.append(Statement("ALTER TYPE \(schema: schemas.work, table: type.name) SET SCHEMA \(id: schemas.tenant)"))
        }
        let kept = Set(source.sequences.map(\.name))
        for sequence in source.sequences {
            moves.append(Statement("ALTER SEQUENCE \(schema: schemas.tenant, table: sequence.name) SET SCHEMA \(id: schemas.retired)"))
        }
        for sequence in destination.sequences {
            let shadow = QualifiedTable(schema: schemas.work, name: sequence.name)
            if kept.contains(sequence.name) {
                moves.append(Statement("SELECT pg_catalog.setval(\(bind: shadow.text)::pg_catalog.regclass, r.last_value, r.is_called) "
                    + "FROM \(schema: schemas.retired, table: sequence.name) AS r"))
            }
            moves.append(Statement("ALTER SEQUENCE \(shadow.sql) SET SCHEMA \(id: schemas.tenant)"))
        }
        guard !moves.isEmpty else { return }
        try connection.pipeline(moves)
        for sequence in destination.sequences where kept.contains(sequence.name) {
            try exhaust(QualifiedTable(schema: schemas.retired, name: sequence.name))
        }
        for sequence in destination.sequences {
            let old = kept.contains(sequence.name) ? QualifiedTable(schema: schemas.retired, name: sequence.name) : nil
            try TableGrants.carrySequence(to: QualifiedTable(schema: schemas.tenant, name: sequence.name), from: old, schema: schemas.tenant, on: connection)
        }
    }

    /// Makes the retired sequence `old` give no value any more: its last value drawn, and its
    /// bound (MAXVALUE, or MINVALUE for a descending one) set there, without CYCLE. A session that
    /// waited for it during the cutover then fails (2200H, "reached maximum value") instead of
    /// taking an id the new sequence gives again. Its position stays readable for an operator.
    func exhaust(_ old: QualifiedTable) throws {
        guard let row = try connection.execute("""
            SELECT pg_catalog.setval(\(bind: old.text)::pg_catalog.regclass, s.last_value, true), q.seqincrement
            FROM \(old.sql) AS s, pg_catalog.pg_sequence AS q WHERE q.seqrelid = pg_catalog.to_regclass(\(bind: old.text))
            """).first else { return }
        let last = try row.decode(Int64.self, at: 0), increment = try row.decode(Int64.self, at: 1)
        let bound: SQL = increment > 0 ? "MAXVALUE" : "MINVALUE"
        try connection.execute("ALTER SEQUENCE \(old.sql) START WITH \(raw: String(last)) \(bound) \(raw: String(last)) NO CYCLE")
    }
}
