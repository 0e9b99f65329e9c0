import EntityModel
import LibPQ
import TypedSQL

extension ExpressionTrust {
    /// The sequences and enum types `version` lists that `schema` holds under an owner that is
    /// neither a superuser nor the migrator. They are found by name, and their owner could change
    /// them under the migrator (a sequence's increment or position, which the keys draw from; a
    /// type's values): `adopt` refuses them, `verify` reports them. (A column of an enum type
    /// depends on it, so ``existing(inSchema:on:)`` finds such a type too; a type no column uses, and
    /// a sequence a default draws from by name, are found here.)
    public static func modelObjects(of version: ModelVersion, inSchema schema: String, on connection: Connection) throws -> [UntrustedExpression.Finding] {
        let sequences = version.sequences.map(\.name), enums = version.enums.map(\.name)
        guard !sequences.isEmpty || !enums.isEmpty else { return [] }
        let query: SQL = """
            SELECT o.kind, o.name, pg_catalog.pg_get_userbyid(o.owner)::text, pg_catalog.pg_describe_object(o.classid, o.objid, 0) FROM (
                SELECT 'sequence' AS kind, c.relname::text AS name, c.relowner AS owner,
                    'pg_catalog.pg_class'::pg_catalog.regclass AS classid, c.oid AS objid
                FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
                WHERE n.nspname = \(literal: schema) AND c.relkind = 'S' AND c.relname::text IN (\(literals: sequences.isEmpty ? [""] : sequences))
                UNION ALL
                SELECT 'type', t.typname::text, t.typowner, 'pg_catalog.pg_type'::pg_catalog.regclass, t.oid
                FROM pg_catalog.pg_type AS t JOIN pg_catalog.pg_namespace AS n ON n.oid = t.typnamespace
                WHERE n.nspname = \(literal: schema) AND t.typtype = 'e' AND t.typname::text IN (\(literals: enums.isEmpty ? [""] : enums))
            ) AS o
            WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_roles AS r WHERE r.oid = o.owner AND (r.rolsuper OR r.rolname = current_user))
            ORDER BY 1, 2
            """
        return try connection.execute(query, schema: schema).map { row in
            let kind = try row.decode(String.self, at: 0), name = try row.decode(String.self, at: 1)
            let what = kind == "sequence" ? "the sequence \(name) listed by version \(version.name) (sequences:)" : "the enum type \(name) of version \(version.name) (enums:)"
            return UntrustedExpression.Finding(place: "schema \(schema): " + what, object: try row.decode(String.self, at: 3),
                                               owner: try row.decode(String.self, at: 2), ownerIsTrusted: false, creator: nil, schema: schema)
        }
    }
}

extension ExpressionTrust {
    /// Before a migration of a tenant at `version` touches it, once per tenant: what its tables
    /// already use (``existing(inSchema:on:)``) and who owns the model's sequences and enum types
    /// (``modelObjects(of:inSchema:on:)``), as `adopt` checked them, since an owner or a right may
    /// have changed since. Throws ``UntrustedExpression`` (42501) on any finding. Rules on the
    /// tables are left out: the migration switches them off.
    ///
    /// Skipped (no round trip) for a version without expressions, enum types or sequences, unless
    /// `always`: tables the migrator and the superusers own then use only PostgreSQL's own functions
    /// and types, as adopted and as created. The caller passes `always` when another role owns a
    /// table or a column's type, since that role may have attached something (a check, a default,
    /// an index, a domain's check) since; it must hold the tables' lock, so nothing changes between
    /// this check and the migration's writes.
    public static func requireTrustedTenant(at version: ModelVersion, inSchema schema: String, always: Bool = false, on connection: Connection) throws {
        guard always || !ModelExpression.all(in: version).isEmpty || !version.enums.isEmpty || !version.sequences.isEmpty else { return }
        let findings = try existing(inSchema: schema, rules: false, on: connection) + modelObjects(of: version, inSchema: schema, on: connection)
        guard findings.isEmpty else { throw UntrustedExpression(findings: findings) }
    }
}
