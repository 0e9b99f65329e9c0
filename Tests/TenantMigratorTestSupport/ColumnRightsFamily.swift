import LibPQ
import PostgresTestSupport

/// Contacts whose columns carry rights of their own (`GRANT SELECT (email) …`) through two mapped
/// steps (not fused): v2 drops `email` and renames `nick` to `handle`; v3 adds an unrelated
/// `email`. Offline the renamed column keeps its rights and the new `email` has none; an online
/// run must leave no more (TableGrantsTests, and on Citus CitusOnlineRunRightsTests).
public enum ColumnRightsFamily {
    /// v2: `email` dropped, `nick` renamed `handle`, `label` added (mapped from the name).
    static let v2 = """
        entities:
          Contact:
            attributes:
              name: { type: string }
              handle: { type: string, optional: true, renamingIdentifier: nick }
              label: { type: string, optional: true }
        """

    /// The versions; v3 adds an `email` (mapped from the name).
    public static let versions = [
        ("v1", """
            entities:
              Contact:
                attributes:
                  name: { type: string }
                  nick: { type: string, optional: true }
                  email: { type: string, optional: true }
            """),
        ("v2", v2),
        ("v3", v2 + "\n      email: { type: string, optional: true }"),
    ]

    /// The two mapped steps.
    public static let mappings = [
        ("v1-to-v2", """
            source: v1
            destination: v2
            entityMappings:
              - name: ContactToContact
                source: Contact
                destination: Contact
                attributes:
                  label: "upper(source.name)"
            """),
        ("v2-to-v3", """
            source: v2
            destination: v3
            entityMappings:
              - name: ContactToContact
                source: Contact
                destination: Contact
                attributes:
                  email: "lower(source.name) || '@new.example'"
            """),
    ]

    /// 20 contacts in `schema`, each with a nick and an email.
    public static func seed(_ schema: String) -> String {
        "INSERT INTO \(schema).contact (name, nick, email) SELECT 'n' || i, 'k' || i, 'e' || i || '@old.example' FROM generate_series(1, 20) AS i"
    }

    /// Column rights of `role` (one with grant option) and of PUBLIC on the three columns of
    /// `schema`'s contacts, one statement each.
    public static func grants(inSchema schema: String, role: String) -> [String] {
        ["GRANT SELECT (name, nick, email), UPDATE (email) ON \(schema).contact TO \(role)",
         "GRANT UPDATE (nick) ON \(schema).contact TO \(role) WITH GRANT OPTION",
         "GRANT SELECT (email), INSERT (nick) ON \(schema).contact TO PUBLIC"]
    }

    /// What ``grants(inSchema:role:)`` leaves at v3 offline (as ``columnRights(_:role:on:)`` lists
    /// it): the renamed column keeps its rights, the new `email` has none.
    public static let rightsAtV3 = ["contact.handle INSERT PUBLIC", "contact.handle SELECT app", "contact.handle UPDATE app grantable", "contact.name SELECT app"]

    /// Each right granted on a column of `schema`'s tables: `table.column privilege grantee[ grantable]`,
    /// `role` written `app`.
    public static func columnRights(_ schema: String, role: String, on connection: Connection) throws -> [String] {
        try connection.column("""
            SELECT c.relname || '.' || t.attname || ' ' || a.privilege_type || ' '
                   || CASE a.grantee WHEN 0 THEN 'PUBLIC' WHEN $2::regrole THEN 'app' ELSE pg_get_userbyid(a.grantee) END
                   || CASE WHEN a.is_grantable THEN ' grantable' ELSE '' END
            FROM pg_class c JOIN pg_attribute t ON t.attrelid = c.oid AND t.attnum > 0 AND NOT t.attisdropped, aclexplode(t.attacl) a
            WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r' AND a.grantee <> c.relowner ORDER BY 1
            """, [schema, role], as: String.self)
    }
}
