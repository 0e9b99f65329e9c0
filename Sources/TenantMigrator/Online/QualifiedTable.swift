import TypedSQL

/// A table named with its schema, for statements about tables of several schemas (the tenant's,
/// the shadow's, the retired ones): the name as SQL, or as the text `regclass` parses, sent as a
/// value.
struct QualifiedTable: Sendable, Hashable {
    let schema: String
    let name: String

    /// `"schema"."name"`.
    var sql: SQL { "\(schema: schema, table: name)" }

    /// `"schema"."name"` as text, for `pg_catalog.to_regclass` and its kin (sent as a value).
    var text: String { sql.text(schema: schema) }

    /// The table's oid, `pg_catalog.to_regclass(…)` of its name sent as a value.
    var oid: SQL { "pg_catalog.to_regclass(\(bind: text))" }
}
