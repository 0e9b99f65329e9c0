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
    @Test func aRollbackByAnotherSuperuserRoleGivesBackTheArchivedValues() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let admin = try Connection(conninfo)
            let suffix = String(UInt32.random(in: .min ... .max), radix: 16)
            let (first, second) = ("tm_role_up_\(suffix)", "tm_role_down_\(suffix)")
            try admin.fixtureScript("CREATE ROLE \(first) LOGIN SUPERUSER; CREATE ROLE \(second) LOGIN SUPERUSER")
            defer { try? admin.fixtureScript("DROP OWNED BY \(first), \(second) CASCADE; DROP ROLE \(first); DROP ROLE \(second)") }
            let (up, connection, schema) = try await fixtureTenant("EveryType", connectionString(conninfo, user: first),
                                                                   insert: "INSERT INTO {schema}.value (id, name, s, i32, dbl) VALUES (1, 'v1', 'kept', 7, 0.30000000000000004)")
            let before = try connection.rows("SELECT v::text FROM \(schema).value AS v ORDER BY id")
            #expect(try await up.migrate(tenant: "acme", to: "v2").outcome == .migrated)
            await up.shutdown()
            let down = try TenantMigrator(connectionString: connectionString(conninfo, user: second), familyDirectory: fixture("EveryType"), policies: PolicyRegistry())
            let result = try await down.rollback(tenant: "acme", to: "v1")
            await down.shutdown()
            #expect(result.outcome == .migrated, "\(result.error ?? "")")
            #expect(try connection.rows("SELECT v::text FROM \(schema).value AS v ORDER BY id") == before)
        }
    }
}
