import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// The rights an online cutover gives the new tables are never wider than those an offline
/// migration leaves (tenant app roles are untrusted): a right granted on a column follows the
/// column through the steps (renamed or not), and a column no source column became gets none,
/// even where a dropped column of the same name had some.
@Suite("Rights an online cutover carries", .serialized)
struct TableGrantsTests {
    /// Each right granted on a table of `schema` itself: `table privilege grantee[ grantable]`, `role` written `app`.
    static func tableRights(_ schema: String, role: String, on connection: Connection) throws -> [String] {
        try connection.column("""
            SELECT c.relname || ' ' || a.privilege_type || ' '
                   || CASE a.grantee WHEN 0 THEN 'PUBLIC' WHEN $2::regrole THEN 'app' ELSE pg_get_userbyid(a.grantee) END
                   || CASE WHEN a.is_grantable THEN ' grantable' ELSE '' END
            FROM pg_class c, aclexplode(c.relacl) a
            WHERE c.relnamespace = $1::regnamespace AND c.relkind IN ('r', 'S') AND a.grantee <> c.relowner ORDER BY 1
            """, [schema, role], as: String.self)
    }

    /// Runs `body` on twins `online` and `twin` at v1 of the family of `versions` and `mappings`
    /// (Contacts when not given), 20 rows each (`seed`, `%@` for the schema), and a role of this
    /// database's own (dropped afterwards) that may use both schemas.
    static func withTwins(
        _ versions: [(String, String)] = ColumnRightsFamily.versions, mappings: [(String, String)] = ColumnRightsFamily.mappings,
        seed: String = ColumnRightsFamily.seed("%@"),
        _ body: (TenantMigrator, Connection, String, _ role: String) async throws -> Void
    ) async throws {
        let family = try OnlineFamilyDirectory("Contacts", versions: versions)
        defer { family.remove() }
        let directory = family.directory.appendingPathComponent("Mappings")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, text) in mappings { try text.write(to: directory.appendingPathComponent("\(name).yaml"), atomically: true, encoding: .utf8) }
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection) = try await OnlineTwins.make(conninfo, family, logger: "TableGrants") { connection, schema in
                try connection.fixtureScript(seed.replacingOccurrences(of: "%@", with: schema))
            }
            // Roles are the server's, shared by every test database: one of this database's own.
            let role = "tm_rights_" + (try connection.scalar("SELECT substr(current_database(), 9)", as: String.self))
            try connection.execute(unsafeSQL: "CREATE ROLE \(role)")
            defer {
                _ = try? connection.execute(unsafeSQL: "DROP OWNED BY \(role)")
                _ = try? connection.execute(unsafeSQL: "DROP ROLE \(role)")
            }
            for schema in OnlineTwins.schemas { try connection.execute(unsafeSQL: "GRANT USAGE ON SCHEMA \(schema) TO \(role)") }
            try await body(migrator, connection, conninfo, role)
        }
    }

    /// The app's writes while the run copies (valid at v1).
    static let writes: [OnlinePhase: [String]] = [.copying: ["UPDATE S.contact SET email = 'w@old.example', nick = 'w' WHERE id = 2"]]

    @Test func aColumnThatReplacesADroppedOneOfTheSameNameGetsNoneOfItsRights() async throws {
        try await Self.withTwins { migrator, connection, conninfo, role in
            for schema in OnlineTwins.schemas { try ColumnRightsFamily.grants(inSchema: schema, role: role).forEach { try connection.execute(unsafeSQL: $0) } }
            try await OnlineTwins.migrate(migrator, conninfo, to: "v3", writes: Self.writes, batchRows: 5)
            let rights = try OnlineTwins.schemas.map { try ColumnRightsFamily.columnRights($0, role: role, on: connection) }
            #expect(rights[0] == rights[1], "online \(rights[0]), offline \(rights[1])")
            // Offline: the renamed column kept its rights, the new `email` has none.
            #expect(rights[1] == ColumnRightsFamily.rightsAtV3)
            for grantee in [role, "public"] {
                let reads = try connection.scalar("SELECT has_column_privilege($1, 'tenant_online.contact', 'email', 'SELECT')", [grantee], as: Bool.self)
                #expect(!reads, "\(grantee) reads the new email online")
            }
            try await OnlineTwins.expectCleanAndNothingLeft(migrator, connection)
        }
    }

    /// The tables the cutover retired (the old version's rows, dropped columns' values included)
    /// keep no right of anyone's, on a column or on the table.
    @Test func theRetiredTablesKeepNoRightOnAColumn() async throws {
        try await Self.withTwins { migrator, connection, conninfo, role in
            for schema in OnlineTwins.schemas { try ColumnRightsFamily.grants(inSchema: schema, role: role).forEach { try connection.execute(unsafeSQL: $0) } }
            try await OnlineTwins.migrate(migrator, conninfo, to: "v3", writes: Self.writes, batchRows: 5)
            let retired = "_tm_retired_" + (try connection.scalar("SELECT 'tenant_online'::regnamespace::oid::text", as: String.self))
            #expect(try connection.scalar("SELECT to_regclass($1) IS NOT NULL", [retired + ".contact"], as: Bool.self))
            #expect(try ColumnRightsFamily.columnRights(retired, role: role, on: connection) == [])
            for grantee in [role, "public"] {
                let reads = try connection.scalar("SELECT has_column_privilege($1, $2, 'email', 'SELECT')", [grantee, retired + ".contact"], as: Bool.self)
                #expect(!reads, "\(grantee) reads the retired email")
            }
        }
    }

    /// v2 adds `Badge`, which a mapping fills from `Person` with the same ids: a new table, which
    /// offline has the schema's default privileges only (here none), not the rights of `person`.
    static let badges = (versions: [
        ("v1", """
            entities:
              Person:
                attributes:
                  name: { type: string }
            """),
        ("v2", """
            entities:
              Person:
                attributes:
                  name: { type: string }
              Badge:
                attributes:
                  label: { type: string }
            """),
    ], mappings: [
        ("v1-to-v2", """
            source: v1
            destination: v2
            entityMappings:
              - name: PersonToPerson
                source: Person
                destination: Person
              - name: PersonToBadge
                source: Person
                destination: Badge
                attributes:
                  label: "upper(source.name)"
            """),
    ])

    @Test func aNewTableAMappingFillsFromAnotherGetsNoneOfItsRights() async throws {
        try await Self.withTwins(Self.badges.versions, mappings: Self.badges.mappings,
                                 seed: "INSERT INTO %@.person (name) SELECT 'n' || i FROM generate_series(1, 20) AS i") { migrator, connection, conninfo, role in
            for schema in OnlineTwins.schemas {
                try connection.fixtureScript("""
                    GRANT SELECT, REFERENCES ON \(schema).person TO \(role) WITH GRANT OPTION;
                    GRANT UPDATE (name) ON \(schema).person TO \(role);
                    GRANT SELECT ON \(schema).person TO PUBLIC
                    """)
            }
            try await OnlineTwins.migrate(migrator, conninfo, to: "v2", writes: [.copying: ["UPDATE S.person SET name = 'w' WHERE id = 2"]], batchRows: 5)
            let rights = try OnlineTwins.schemas.map { try Self.tableRights($0, role: role, on: connection) + ColumnRightsFamily.columnRights($0, role: role, on: connection) }
            #expect(rights[0] == rights[1], "online \(rights[0]), offline \(rights[1])")
            #expect(rights[1].allSatisfy { $0.hasPrefix("person") }, "offline \(rights[1])")
            #expect(!rights[1].isEmpty)
        }
    }

    /// ColumnRightsFamily with `Contact` renamed `Person` in v2 (its table `person`).
    static let renamed = (
        versions: ColumnRightsFamily.versions.map { version, text in
            (version, version == "v1" ? text : text.replacingOccurrences(of: "  Contact:\n", with: version == "v2" ? "  Person:\n    renamingIdentifier: Contact\n" : "  Person:\n"))
        },
        mappings: ColumnRightsFamily.mappings.map { name, text in
            (name, text.replacingOccurrences(of: "destination: Contact", with: "destination: Person")
                .replacingOccurrences(of: name == "v1-to-v2" ? "ContactToContact" : "source: Contact", with: name == "v1-to-v2" ? "ContactToPerson" : "source: Person")
                .replacingOccurrences(of: "ContactToContact", with: "PersonToPerson"))
        })

    /// The table renamed with its columns' rights: each follows its column to the renamed table.
    @Test func aRenamedTablesColumnsKeepTheirOwnRights() async throws {
        try await Self.withTwins(Self.renamed.versions, mappings: Self.renamed.mappings) { migrator, connection, conninfo, role in
            for schema in OnlineTwins.schemas { try ColumnRightsFamily.grants(inSchema: schema, role: role).forEach { try connection.execute(unsafeSQL: $0) } }
            try await OnlineTwins.migrate(migrator, conninfo, to: "v3", writes: Self.writes, batchRows: 5)
            let rights = try OnlineTwins.schemas.map { try ColumnRightsFamily.columnRights($0, role: role, on: connection) }
            #expect(rights[0] == rights[1], "online \(rights[0]), offline \(rights[1])")
            #expect(rights[1] == ColumnRightsFamily.rightsAtV3.map { $0.replacingOccurrences(of: "contact.", with: "person.") })
        }
    }

    /// A right the app role granted on (`WITH GRANT OPTION`) to another role. The run migrates, as
    /// offline (it failed with 2BP01, dependent privileges exist, where the cutover revoked the
    /// app's rights on the retired table before the other role's, without CASCADE). Known issue:
    /// offline the right's grantor stays the app role (whose `REVOKE … CASCADE` takes it back); the
    /// cutover grants it as the table's owner (the migrator: `GRANTED BY` must be the current
    /// user), so online it outlives a revoke of the app's grant option.
    @Test func aRightTheAppGrantedKeepsItsGrantor() async throws {
        try await Self.withTwins { migrator, connection, conninfo, role in
            let other = role + "_b"
            try connection.execute(unsafeSQL: "CREATE ROLE \(other)")
            defer {
                _ = try? connection.execute(unsafeSQL: "DROP OWNED BY \(other)")
                _ = try? connection.execute(unsafeSQL: "DROP ROLE \(other)")
            }
            for schema in OnlineTwins.schemas {
                try connection.execute(unsafeSQL: "GRANT SELECT, UPDATE ON \(schema).contact TO \(role) WITH GRANT OPTION")
                try connection.execute(unsafeSQL: "SET ROLE \(role)")
                try connection.execute(unsafeSQL: "GRANT SELECT ON \(schema).contact TO \(other)")
                try connection.execute(unsafeSQL: "RESET ROLE")
            }
            try await OnlineTwins.migrate(migrator, conninfo, to: "v3", writes: Self.writes, batchRows: 5)
            let grantors = try OnlineTwins.schemas.map { schema in
                try connection.column("""
                    SELECT a.privilege_type || ' to ' || pg_get_userbyid(a.grantee) || ' by ' || CASE a.grantor WHEN c.relowner THEN 'owner' ELSE pg_get_userbyid(a.grantor) END
                    FROM pg_class c, aclexplode(c.relacl) a WHERE c.oid = $1::regclass AND a.grantee = $2::regrole
                    """, [schema + ".contact", other], as: String.self)
            }
            #expect(grantors[1] == ["SELECT to \(other) by \(role)"])
            withKnownIssue("Issue 34: the cutover grants every right as the migrator, whatever its grantor") {
                #expect(grantors[0] == grantors[1])
            }
        }
    }
}
