import EntityModel
import LibPQ
import TypedSQL

extension SchemaSnapshot {
    /// The `MINVALUE … MAXVALUE … CACHE …[ CYCLE]` of the `pg_sequence` row `s`, as one text
    /// (``SequenceSnapshot/limits``), or NULL where they are the defaults for its type and increment.
    static let sequenceLimits: SQL = """
        CASE WHEN s.seqmin = CASE WHEN s.seqincrement > 0 THEN 1 ELSE m.low END
              AND s.seqmax = CASE WHEN s.seqincrement > 0 THEN m.high ELSE -1 END
              AND s.seqcache = 1 AND NOT s.seqcycle THEN NULL
             ELSE 'MINVALUE ' || s.seqmin::text || ' MAXVALUE ' || s.seqmax::text || ' CACHE ' || s.seqcache::text
                  || CASE WHEN s.seqcycle THEN ' CYCLE' ELSE '' END END
        """

    /// Joined after `pg_sequence s`: `m.low` and `m.high`, the bounds of the sequence's type.
    static let sequenceTypeBounds: SQL = """
        CROSS JOIN LATERAL (SELECT CASE s.seqtypid WHEN 'pg_catalog.int2'::pg_catalog.regtype THEN -32768 WHEN 'pg_catalog.int4'::pg_catalog.regtype THEN -2147483648
                                                   ELSE -9223372036854775808 END AS low,
                                   CASE s.seqtypid WHEN 'pg_catalog.int2'::pg_catalog.regtype THEN 32767 WHEN 'pg_catalog.int4'::pg_catalog.regtype THEN 2147483647
                                                   ELSE 9223372036854775807 END AS high) AS m
        """

    /// The sequences of `schema` that no identity column owns, not starting with `_`: their type,
    /// start, increment, other settings where they are not the defaults, and the column that owns
    /// them (a `serial` column's).
    static func readSequences(schema: String, on connection: Connection) throws -> [SequenceSnapshot] {
        let query: SQL = """
            SELECT c.relname::text AS name, pg_catalog.format_type(s.seqtypid, NULL) AS type, s.seqstart AS start, s.seqincrement AS increment,
                   \(sequenceLimits) AS limits,
                   (SELECT o.relname::text || '.' || a.attname::text
                    FROM pg_catalog.pg_depend d
                    JOIN pg_catalog.pg_class o ON o.oid = d.refobjid
                    JOIN pg_catalog.pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
                    WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objid = c.oid
                      AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.deptype = 'a') AS owned_by
            FROM pg_catalog.pg_class c
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_catalog.pg_sequence s ON s.seqrelid = c.oid
            \(sequenceTypeBounds)
            WHERE n.nspname = \(bind: .text(schema)) AND c.relkind = 'S' AND left(c.relname, 4) <> '_tm_'
              AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d
                              WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objid = c.oid AND d.deptype = 'i')
            """
        return try connection.execute(query, schema: schema).map { row in
            SequenceSnapshot(
                name: try row.decode(String.self, column: "name"), type: try row.decode(String.self, column: "type"),
                start: try row.decode(Int64.self, column: "start"), increment: try row.decode(Int64.self, column: "increment"),
                limits: try row.decode(String?.self, column: "limits"), ownedBy: try row.decode(String?.self, column: "owned_by")
            )
        }
    }
}
