import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 30 (found by ``RoundTripSettingsPropertyTests``): the archive may be written by one
/// migrator role and read by another. A tenant migrated up by one superuser role and rolled back
/// by another (a team that moves its migrations to a new role, a fleet run as another
/// administrator) gets every archived value back: an archive owned by a superuser is as trusted as
/// one the migrator owns, since only a superuser could have made or changed it. (A table another
/// role owns is still refused: ``ForeignArchive``, covered by the security tests.)
@Suite("Archive: another superuser migrator role gives back what one archived")
struct ArchiveMigratorRoleTests {
    /// The values of `schema`'s one table, as text.
    static func values(in schema: String, on connection: Connection) throws -> [[String?]] {
        try connection.rows("SELECT v::text FROM \(schema).value AS v ORDER BY id")
    }

    /// Tenant `acme` of `EveryType` made with one value and migrated to v2 by `role`: its
    /// connection (as `role`), its schema, and its values as they were at v1.
    static func migratedUp(by role: String, _ conninfo: String) async throws -> (connection: Connection, schema: String, before: [[String?]]) {
        let (up, connection, schema) = try await fixtureTenant("EveryType", connectionString(conninfo, user: role),
                                                               insert: "INSERT INTO {schema}.value (id, name, s, i32, dbl) VALUES (1, 'v1', 'kept', 7, 0.30000000000000004)")
        let before = try values(in: schema, on: connection)
        #expect(try await up.migrate(tenant: "acme", to: "v2").outcome == .migrated)
        await up.shutdown()
        return (connection, schema, before)
    }

    /// Rolls `acme` back to v1 as `role` and expects its values as they were (`before`).
    static func expectRolledBack(by role: String, _ conninfo: String, to before: [[String?]], in schema: String, on connection: Connection) async throws {
        let down = try TenantMigrator(connectionString: connectionString(conninfo, user: role), familyDirectory: fixture("EveryType"), policies: PolicyRegistry())
        let result = try await down.rollback(tenant: "acme", to: "v1")
        await down.shutdown()
        #expect(result.outcome == .migrated, "\(result.error ?? "")")
        #expect(try values(in: schema, on: connection) == before)
    }

    @Test func aRollbackByAnotherSuperuserRoleGivesBackTheArchivedValues() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let admin = try Connection(conninfo)
            let suffix = String(UInt32.random(in: .min ... .max), radix: 16)
            let (first, second) = ("tm_role_up_\(suffix)", "tm_role_down_\(suffix)")
            try admin.fixtureScript("CREATE ROLE \(first) LOGIN SUPERUSER; CREATE ROLE \(second) LOGIN SUPERUSER")
            defer { _ = try? admin.fixtureScript("DROP OWNED BY \(first), \(second) CASCADE; DROP ROLE \(first); DROP ROLE \(second)") }
            let (connection, schema, before) = try await Self.migratedUp(by: first, conninfo)
            try await Self.expectRolledBack(by: second, conninfo, to: before, in: schema, on: connection)
        }
    }

    /// Issue 30: a team that moves its migrations from one migrator role to another that is a
    /// member of it (`GRANT old TO new`, inheriting its rights: it may act as the archive's owner
    /// anyway) rolls back what the old role archived; a role that is not a member is refused
    /// (``ForeignArchive``: a table of another role's, which could carry that role's code).
    @Test func aRollbackByAMemberOfTheArchivingRoleGivesBackTheArchivedValues() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let admin = try Connection(conninfo)
            let suffix = String(UInt32.random(in: .min ... .max), radix: 16)
            let (first, second, other) = ("tm_role_up_\(suffix)", "tm_role_member_\(suffix)", "tm_role_other_\(suffix)")
            let database = try admin.scalar("SELECT current_database()::text", as: String.self)
            try admin.fixtureScript("""
                CREATE ROLE \(first) LOGIN; CREATE ROLE \(second) LOGIN IN ROLE \(first); CREATE ROLE \(other) LOGIN;
                GRANT CREATE ON DATABASE "\(database)" TO \(first)
                """)
            defer { _ = try? admin.fixtureScript("DROP OWNED BY \(first), \(second), \(other) CASCADE; DROP ROLE \(second); DROP ROLE \(first); DROP ROLE \(other)") }
            let (connection, schema, before) = try await Self.migratedUp(by: first, conninfo)
            #expect(try admin.scalar("SELECT pg_get_userbyid(relowner)::text FROM pg_class WHERE oid = to_regclass('\(schema)._tm_archive')", as: String.self) == first)
            try await Self.expectRolledBack(by: second, conninfo, to: before, in: schema, on: connection)
            // A role that is not a member may not use it.
            try admin.fixtureScript("GRANT USAGE ON SCHEMA \(schema) TO \(other); SET ROLE \(other)")
            #expect(throws: ForeignArchive.self) { try TenantArchive.exists(inSchema: schema, on: admin) }
            try admin.fixtureScript("RESET ROLE")
        }
    }
}
