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
/// A sequence comes in no earlier than where the tenant's stood at that moment (every value the
/// app drew during the run, even for rows it rolled back, stays drawn), and past the rows the run
/// made with explicit values (``advance(_:past:)``), with the tenant's one's rights. Moving the
/// tenant's sequence out takes its ACCESS EXCLUSIVE lock, so no session draws from it between the
/// reading of its position and the commit; a `nextval` that waited for it (it found the sequence
/// by name before the commit, so it draws from the retired one) then finds its rights
/// revoked with the retired tables' (``RetiredTables/revokeGrants(in:on:)``), and the old sequence
/// ends where it stands (``RetiredSequence/exhaust(_:on:)``), so such a draw fails, whatever the role, rather than
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
            moves.append(Statement("ALTER SEQUENCE \(schema: schemas.work, table: sequence.name) SET SCHEMA \(id: schemas.tenant)"))
        }
        guard !moves.isEmpty else { return }
        try connection.pipeline(moves)
        for sequence in destination.sequences {
            try advance(QualifiedTable(schema: schemas.tenant, name: sequence.name),
                        past: kept.contains(sequence.name) ? QualifiedTable(schema: schemas.retired, name: sequence.name) : nil)
        }
        for sequence in destination.sequences where kept.contains(sequence.name) {
            try RetiredSequence.exhaust("pg_catalog.to_regclass(\(bind: QualifiedTable(schema: schemas.retired, name: sequence.name).text))", on: connection)
        }
        for sequence in destination.sequences {
            let old = kept.contains(sequence.name) ? QualifiedTable(schema: schemas.retired, name: sequence.name) : nil
            try TableGrants.carrySequence(to: QualifiedTable(schema: schemas.tenant, name: sequence.name), from: old, schema: schemas.tenant, on: connection)
        }
    }

    /// Moves the sequence `sequence` (the shadow's, now in the tenant's schema) to the furthest of:
    /// where it stands (the steps may have moved it past rows a mapping made), where the tenant's
    /// `old` one stands (every value the app drew during the run, for rows it rolled back too), and
    /// the largest value (smallest, for a descending one) of each of the tenant's integer columns
    /// whose default draws from it and that leads an index (a key: rows catch-up made with explicit
    /// ids, as the keys' ranks of a distinct mapping; read from the index, so the cutover's locks
    /// are not held for a scan of the table). Never backwards: setting it to the old one's position alone set it back
    /// below ids the build gave, and the app's next row took one in use (23505). Values are
    /// compared as positions, `(last_value, is_called)`, without arithmetic that could pass a bound.
    func advance(_ sequence: QualifiedTable, past old: QualifiedTable?) throws {
        let columns = try connection.execute("""
            SELECT c.relname::pg_catalog.text, a.attname::pg_catalog.text
            FROM pg_catalog.pg_depend AS d
            JOIN pg_catalog.pg_attrdef AS ad ON d.classid = 'pg_catalog.pg_attrdef'::pg_catalog.regclass AND ad.oid = d.objid
            JOIN pg_catalog.pg_attribute AS a ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum AND NOT a.attisdropped
            JOIN pg_catalog.pg_class AS c ON c.oid = ad.adrelid JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
            WHERE d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.refobjid = pg_catalog.to_regclass(\(bind: sequence.text))
                AND n.nspname = \(bind: sequence.schema) AND c.relkind IN ('r', 'p')
                AND a.atttypid IN ('pg_catalog.int2'::pg_catalog.regtype, 'pg_catalog.int4'::pg_catalog.regtype, 'pg_catalog.int8'::pg_catalog.regtype)
                AND EXISTS (SELECT FROM pg_catalog.pg_index AS i WHERE i.indrelid = c.oid AND i.indkey[0] = a.attnum AND i.indpred IS NULL)
            ORDER BY 1, 2
            """).map { (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1)) }
        let ascending: SQL = "((SELECT q.seqincrement FROM pg_catalog.pg_sequence AS q WHERE q.seqrelid = pg_catalog.to_regclass(\(bind: sequence.text))) > 0)"
        var positions: [SQL] = ["SELECT s.last_value, s.is_called FROM \(sequence.sql) AS s"]
        if let old { positions.append("SELECT r.last_value, r.is_called FROM \(old.sql) AS r") }
        for (table, column) in columns {
            positions.append("SELECT (CASE WHEN \(ascending) THEN pg_catalog.max(t.\(id: column)) ELSE pg_catalog.min(t.\(id: column)) END)::pg_catalog.int8, true "
                + "FROM \(schema: sequence.schema, table: table) AS t")
        }
        try connection.execute("""
            SELECT pg_catalog.setval(pg_catalog.to_regclass(\(bind: sequence.text)), f.last, f.called)
            FROM (SELECT p.last, p.called FROM (\(positions, joinedBy: " UNION ALL ")) AS p(last, called)
                  WHERE p.last IS NOT NULL
                  ORDER BY CASE WHEN \(ascending) THEN p.last END DESC NULLS LAST, CASE WHEN NOT \(ascending) THEN p.last END ASC NULLS LAST, p.called DESC
                  LIMIT 1) AS f
            """)
    }
}
