import LibPQ
import TypedSQL

/// The comments on a table's indexes and constraints (`COMMENT ON INDEX`, `COMMENT ON CONSTRAINT
/// … ON …`), which the model does not carry (an adopted tenant's, docs/Import.md, or the app's
/// own): an offline run keeps them on the objects it leaves in place, and they are lost where the
/// objects are made again, by ``ColumnOrder`` or by an online run, whose swap replaces the table
/// by another. Read from one table, written as the statements that give them to the objects of the
/// same names and definitions of another (or the same) table.
public enum ObjectComments {
    /// The `COMMENT ON CONSTRAINT <name> ON <target> IS …` and `COMMENT ON INDEX <name> IS …`
    /// statements that give each `target`'s indexes and constraints the comments its `source`'s of
    /// the same name and definition have (both relations as oids, `pg_catalog.to_regclass(…)`), as
    /// PostgreSQL writes them (`%I`, `%L`, a `regclass`'s text). An object of `source` named
    /// `retiredPrefix` + the name (the in-schema swap's retired naming) counts as of the same name.
    /// Definitions are compared names aside: a constraint's kind and text (a foreign key's target
    /// table left out, being the old table's on one side), an index's keys, uniqueness, method and
    /// predicate. Only the objects named in `objects` where it is given. None when no such object
    /// has a comment (the usual case); one catalog query for all the pairs.
    public static func statements(for pairs: [(source: SQL, target: SQL)], objects: [String]? = nil, retiredPrefix: String = "", schema: String? = nil,
                                  on connection: Connection) throws -> [SQL] {
        if pairs.isEmpty || objects?.isEmpty == true { return [] }
        let only: (SQL) -> SQL = { name in objects.map { " AND \(name) IN (\(literals: $0))" } ?? "" }
        let tables: SQL = "(VALUES \(pairs.map { "((\($0.source))::pg_catalog.oid, (\($0.target))::pg_catalog.oid)" as SQL }, joinedBy: ", ")) AS p(source, target)"
        return try connection.execute("""
            SELECT pg_catalog.format('COMMENT ON CONSTRAINT %I ON %s IS %L', n.conname, n.conrelid::pg_catalog.regclass::pg_catalog.text, d.description)
            FROM \(tables)
            JOIN pg_catalog.pg_constraint o ON o.conrelid = p.source
            JOIN pg_catalog.pg_description d ON d.objoid = o.oid AND d.classoid = 'pg_catalog.pg_constraint'::pg_catalog.regclass
            JOIN pg_catalog.pg_constraint n ON n.conrelid = p.target AND \(literal: retiredPrefix) || n.conname IN (o.conname, \(literal: retiredPrefix) || o.conname)
                 AND n.contype = o.contype AND \(constraintShape("n")) = \(constraintShape("o"))\(only("n.conname"))
            UNION ALL
            SELECT pg_catalog.format('COMMENT ON INDEX %s IS %L', n.indexrelid::pg_catalog.regclass::pg_catalog.text, d.description)
            FROM \(tables)
            JOIN pg_catalog.pg_index o ON o.indrelid = p.source JOIN pg_catalog.pg_class oi ON oi.oid = o.indexrelid
            JOIN pg_catalog.pg_description d ON d.objoid = o.indexrelid AND d.classoid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objsubid = 0
            JOIN pg_catalog.pg_index n ON n.indrelid = p.target
            JOIN pg_catalog.pg_class ni ON ni.oid = n.indexrelid AND \(literal: retiredPrefix) || ni.relname IN (oi.relname, \(literal: retiredPrefix) || oi.relname)
                 AND ni.relam = oi.relam AND n.indisunique = o.indisunique AND \(indexShape("n")) = \(indexShape("o"))\(only("ni.relname"))
            ORDER BY 1
            """, schema: schema).map { "\(quotedByServer: try $0.decode(String.self, at: 0))" }
    }

    /// A constraint's definition (`pg_constraint` row `alias`) without the table a foreign key references.
    private static func constraintShape(_ alias: SQL) -> SQL {
        "pg_catalog.regexp_replace(pg_catalog.pg_get_constraintdef(\(alias).oid), ' REFERENCES [^(]*\\(', ' REFERENCES (')"
    }

    /// An index's keys and predicate (`pg_index` row `alias`), as columns' names and expressions.
    private static func indexShape(_ alias: SQL) -> SQL {
        """
        (ARRAY(SELECT pg_catalog.pg_get_indexdef(\(alias).indexrelid, k, true) FROM pg_catalog.generate_series(1, \(alias).indnatts) AS k), \
        pg_catalog.pg_get_expr(\(alias).indpred, \(alias).indrelid, true))::pg_catalog.text
        """
    }
}
