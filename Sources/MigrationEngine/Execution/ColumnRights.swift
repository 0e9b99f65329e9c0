import LibPQ
import TypedSQL

/// The rights granted on single columns (`GRANT SELECT (email) ON TABLE …`), which a column loses
/// when it is dropped and made again (``ColumnOrder``) or when its table is replaced by another
/// (an online run's swap): read from one table, written as the statements that give them to the
/// same columns of another (or the same) table: by name, or through an online run's lineage.
public enum ColumnRights {
    /// The `GRANT SELECT (email), UPDATE (email) ON TABLE <target> TO <role>` statements, one per
    /// column, grantee and grant option, that give `target`'s columns the rights `source`'s columns
    /// of the same names have (both relations as oids, `pg_catalog.to_regclass(…)`), as PostgreSQL
    /// writes them (`%I`, a `regclass`'s text); only those of `columns` where it is given. None
    /// for columns with no rights of their own (the usual case). One catalog query; `schema`
    /// renders the tenant's tables named in `source` and `target` (`table:`, `qualifiedNameLiteral:`).
    ///
    /// With `origins` (target column → the column of `source` it is, through the steps: renamed or
    /// not), each target column gets the rights of its own source column, as offline, where a
    /// column keeps its rights through renames and type changes; a target column that is in no
    /// source column's place gets none, even where `source` has a column of its name (a column
    /// dropped, and another added under its name, is another column: offline it has no rights).
    ///
    /// Each right names its column: in `GRANT SELECT, UPDATE (email)` the column list binds to
    /// UPDATE alone, and SELECT would be granted on the whole table.
    public static func grants(from source: SQL, to target: SQL, columns: [String]? = nil, origins: [String: String]? = nil, schema: String? = nil,
                              on connection: Connection) throws -> [SQL] {
        if columns?.isEmpty == true || origins?.isEmpty == true { return [] }
        let only: SQL = columns.map { " AND o.attname IN (\(literals: $0))" } ?? ""
        // Each target column beside its source column: by name, or as `origins` pairs them.
        let pairs: SQL = origins.map { origins in
            let pairs = origins.keys.sorted().map { "(\(literal: origins[$0]!), \(literal: $0))" as SQL }
            return "(o.attname::pg_catalog.text, n.attname::pg_catalog.text) IN (\(pairs, joinedBy: ", "))"
        } ?? "n.attname = o.attname"
        return try connection.execute("""
            SELECT pg_catalog.format('GRANT %s ON TABLE %s TO %s%s', pg_catalog.string_agg(pg_catalog.format('%s (%I)', a.privilege_type, n.attname), ', '), \
            (\(target))::pg_catalog.regclass::pg_catalog.text, \(grantee), CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END) \
            FROM pg_catalog.pg_attribute o JOIN pg_catalog.pg_attribute n ON n.attrelid = \(target) AND \(pairs) AND n.attnum > 0 AND NOT n.attisdropped, \
            pg_catalog.aclexplode(o.attacl) a \
            WHERE o.attrelid = \(source) AND o.attnum > 0 AND NOT o.attisdropped AND o.attacl IS NOT NULL\(only) \
            GROUP BY n.attname, a.grantee, a.is_grantable ORDER BY 1
            """, schema: schema).map { "\(quotedByServer: try $0.decode(String.self, at: 0))" }
    }

    /// `PUBLIC` or the quoted role of an `aclexplode` row `a`.
    public static let grantee: SQL = "CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END"
}
