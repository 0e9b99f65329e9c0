import LibPQ
import MigrationEngine
import TypedSQL

/// The rights and identity sequence of a table an online cutover moves into a tenant's schema,
/// made what an offline migration would have left: the rights of the table it replaces (which an
/// offline migration alters in place), or, for a new table, the rights PostgreSQL gives a table
/// created in that schema (its default privileges); and a sequence past every id in use.
enum TableGrants {
    /// Gives `table` (qualified) the rights of `old` (qualified), when there is one; otherwise adds
    /// the default privileges of `schema` for the table's owner (none when `schema` is nil). The
    /// same for the table's `id` sequence, when it has an identity column. The rights granted on a
    /// column itself go to the column of the same name or, with `columnOrigins` (each of `table`'s
    /// columns → the column of `old` it is, through the steps: ``OnlineLineage/columnOrigins(of:)``),
    /// to the column it became, renamed or not, as offline; a column of `table` that is no column of
    /// `old` gets none, even where `old` has one of its name (dropped, and another added).
    static func carry(to table: QualifiedTable, from old: QualifiedTable?, schema: String?, hasIdentity: Bool, columnOrigins: [String: String]? = nil,
                      on connection: Connection) throws {
        try carry(to: table, sequenceOf: false, from: old, schema: schema, columnOrigins: columnOrigins, on: connection)
        if hasIdentity { try carry(to: table, sequenceOf: true, from: old, schema: schema, on: connection) }
    }

    /// Gives the sequence `sequence` (qualified, one of the model's `sequences:`) the rights of
    /// `old`, or the default privileges of `schema` for sequences when there is no old one.
    static func carrySequence(to sequence: QualifiedTable, from old: QualifiedTable?, schema: String, on connection: Connection) throws {
        try carry(object: "pg_catalog.to_regclass(\(bind: sequence.text))", from: old.map { "pg_catalog.to_regclass(\(bind: $0.text))" },
                  isSequence: true, schema: schema, on: connection)
    }

    /// One object's rights: the table's (`sequenceOf` false) or its `id` sequence's.
    private static func carry(to table: QualifiedTable, sequenceOf: Bool, from old: QualifiedTable?, schema: String?, columnOrigins: [String: String]? = nil,
                              on connection: Connection) throws {
        try carry(object: relation(table, sequenceOf: sequenceOf), from: old.map { relation($0, sequenceOf: sequenceOf) }, isSequence: sequenceOf,
                  schema: schema, columnOrigins: columnOrigins, on: connection)
    }

    /// The rights of the relation `object` (an oid): those of `source`, or the default privileges of `schema`.
    private static func carry(object: SQL, from source: SQL?, isSequence sequenceOf: Bool, schema: String?, columnOrigins: [String: String]? = nil,
                              on connection: Connection) throws {
        let kind = sequenceOf ? "SEQUENCE" : "TABLE"
        // GRANT and REVOKE statements PostgreSQL wrote (format's %s of a regclass, quote_ident).
        var statements: [SQL] = []
        if let source {
            // What the object has now (the defaults of the schema it was built in) goes; the old one's rights come.
            statements += try connection.execute("""
                SELECT pg_catalog.format(\(literal: "REVOKE ALL ON \(kind) %s FROM %s"), \(object)::pg_catalog.text, \(grantee))
                FROM pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a WHERE c.oid = \(object) AND a.grantee <> c.relowner
                GROUP BY a.grantee
                """).map { "\(quotedByServer: try $0.decode(String.self, at: 0))" }
            statements += try connection.execute("""
                SELECT pg_catalog.format(\(literal: "GRANT %s ON \(kind) %s TO %s%s"), pg_catalog.string_agg(a.privilege_type, ', '), \(object)::pg_catalog.text,
                                         \(grantee), CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END)
                FROM pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a
                WHERE c.oid = \(source) AND a.grantee <> c.relowner GROUP BY a.grantee, a.is_grantable
                """).map { "\(quotedByServer: try $0.decode(String.self, at: 0))" }
            // The rights on the columns the table keeps (GRANT SELECT (email) …), each on the
            // column it became, as an offline migration leaves them on the columns it does not
            // drop, renamed or not; a column added has none.
            if !sequenceOf { statements += try ColumnRights.grants(from: source, to: object, origins: columnOrigins, on: connection) }
        } else if let schema {
            statements += try connection.execute("""
                SELECT pg_catalog.format(\(literal: "GRANT %s ON \(kind) %s TO %s%s"), pg_catalog.string_agg(a.privilege_type, ', '), \(object)::pg_catalog.text,
                                         \(grantee), CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END)
                FROM pg_catalog.pg_default_acl d JOIN pg_catalog.pg_namespace n ON n.oid = d.defaclnamespace,
                     pg_catalog.pg_class c, pg_catalog.aclexplode(d.defaclacl) a
                WHERE n.nspname = \(bind: schema) AND d.defaclobjtype = \(literal: sequenceOf ? "S" : "r") AND c.oid = \(object) AND d.defaclrole = c.relowner
                GROUP BY a.grantee, a.is_grantable
                """).map { "\(quotedByServer: try $0.decode(String.self, at: 0))" }
        }
        // One round trip: the cutover holds the tables' locks meanwhile.
        if !statements.isEmpty { try connection.pipeline(statements.map { Statement($0) }) }
    }

    /// The table's oid (`sequenceOf` false) or its `id` sequence's, its name sent as a value.
    private static func relation(_ table: QualifiedTable, sequenceOf: Bool) -> SQL {
        sequenceOf ? "pg_catalog.pg_get_serial_sequence(\(bind: table.text), 'id')::pg_catalog.regclass" : "pg_catalog.to_regclass(\(bind: table.text))"
    }

    /// `PUBLIC` or the quoted role of an `aclexplode` row `a`.
    private static var grantee: SQL { ColumnRights.grantee }

    /// Each role (`a.grantee`, an oid; 0 for `PUBLIC`) with a right on the relation of the
    /// `pg_class` row `c`, on the relation itself or on one of its columns (`GRANT SELECT (email)`
    /// leaves the table's own rights as they were): a `REVOKE ALL ON TABLE` from each of them takes
    /// its rights on the columns too. For a `FROM` list beside `c`.
    static let othersRights: SQL = """
        LATERAL (SELECT r.grantee FROM pg_catalog.aclexplode(c.relacl) r UNION \
        SELECT r.grantee FROM pg_catalog.pg_attribute t, pg_catalog.aclexplode(t.attacl) r WHERE t.attrelid = c.oid AND t.attnum > 0) AS a
        """

    /// Sets `table`'s `id` sequence past its largest id and past the last value `old`'s sequence
    /// gave out (ids the app took for rows it rolled back are not given again).
    static func advanceIdentity(of table: QualifiedTable, past old: QualifiedTable?, on connection: Connection) throws {
        let previous: SQL = old.map { "pg_catalog.pg_sequence_last_value(\(relation($0, sequenceOf: true)))" } ?? "NULL::pg_catalog.int8"
        let maximum: SQL = "(SELECT pg_catalog.max(t.id) FROM \(table.sql) AS t)"
        try connection.execute(
            "SELECT pg_catalog.setval(\(relation(table, sequenceOf: true)), v.last, true) "
                + "FROM (SELECT GREATEST(coalesce(\(maximum), 0), coalesce(\(previous), 0)) AS last) AS v WHERE v.last > 0" as SQL
        )
    }
}
