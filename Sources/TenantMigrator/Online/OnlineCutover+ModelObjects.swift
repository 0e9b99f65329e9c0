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
            try exhaust("pg_catalog.to_regclass(\(bind: QualifiedTable(schema: schemas.retired, name: sequence.name).text))")
        }
        for sequence in destination.sequences {
            let old = kept.contains(sequence.name) ? QualifiedTable(schema: schemas.retired, name: sequence.name) : nil
            try TableGrants.carrySequence(to: QualifiedTable(schema: schemas.tenant, name: sequence.name), from: old, schema: schemas.tenant, on: connection)
        }
    }

    /// Makes the retired sequence `old` (an expression giving its oid) give no value any more: its
    /// last value drawn, and its bound (MAXVALUE, or MINVALUE for a descending one) set there,
    /// without CYCLE. A session that waited for it during the cutover (it found the sequence by
    /// name, or through `pg_get_serial_sequence`, before the commit) then fails (2200H, "reached
    /// maximum value") instead of taking an id the new sequence gives again. Its position stays
    /// readable for an operator. Used for the model's sequences and for a `serial` or identity
    /// key's, which moves out with its table (OnlineCutover.swift).
    func exhaust(_ old: SQL) throws {
        guard let row = try connection.execute("""
            SELECT q.seqrelid::pg_catalog.regclass::pg_catalog.text, q.seqincrement, q.seqmin, q.seqmax,
                   pg_catalog.setval(q.seqrelid, coalesce(pg_catalog.pg_sequence_last_value(q.seqrelid), q.seqstart), true)
            FROM pg_catalog.pg_sequence AS q WHERE q.seqrelid = \(old)
            """).first else { return }
        let name = try row.decode(String.self, at: 0), increment = try row.decode(Int64.self, at: 1)
        let (minimum, maximum, last) = (try row.decode(Int64.self, at: 2), try row.decode(Int64.self, at: 3), try row.decode(Int64.self, at: 4))
        // The bound the sequence runs towards goes to its last value; the other one, when it is
        // there already, one step away (PostgreSQL wants MINVALUE below MAXVALUE).
        let limits: SQL = increment > 0
            ? (minimum < last ? "" : "MINVALUE \(raw: String(last - 1)) ") + "MAXVALUE \(raw: String(last))"
            : "MINVALUE \(raw: String(last))" + (maximum > last ? "" : " MAXVALUE \(raw: String(last + 1))")
        // (The name as PostgreSQL prints a regclass: qualified and quoted.)
        try connection.execute("ALTER SEQUENCE \(quotedByServer: name) START WITH \(raw: String(last)) \(limits) NO CYCLE")
    }
}
