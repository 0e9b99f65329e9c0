import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Settings that change how SQL text is parsed, set as old configurations set them
/// (`standard_conforming_strings = off` was the default before PostgreSQL 9.1, `array_nulls = off`
/// before 8.2): a migration still means what the model and the migrator's SQL say. A default
/// expression's backslash stays a backslash, an archived array's NULL element comes back as NULL
/// and its `"NULL"` string as a string, and the fleet's own statements parse.
@Suite("MigratorSession: legacy parsing settings")
struct MigratorSessionLegacySettingsTests {
    static let family = [
        ("v1", """
            entities:
              Item:
                attributes:
                  name: { type: string }
                  tags: { type: "text[]", optional: true }
            """),
        ("v2", """
            entities:
              Item:
                attributes:
                  name: { type: string }
                  path: { type: string, defaultExpression: "'C:\\\\temp'" }
            """),
    ]

    @Test func aMigrationMeansWhatTheModelSaysUnderLegacyParsingSettings() async throws {
        try await withTenantForDatabaseDefaults("Legacy", versions: Self.family) { directory, conninfo, connection, schema, database in
            try connection.fixtureScript(#"""
                INSERT INTO \#(schema).item (name, tags) VALUES ('a', '{NULL,"NULL","back\\slash"}'), ('b', NULL), ('c', '{}');
                """#)
            let before = try connection.rows("SELECT id::text, name, tags::text FROM \(schema).item ORDER BY id")
            try connection.fixtureScript("""
                ALTER DATABASE \(database) SET standard_conforming_strings = off;
                ALTER DATABASE \(database) SET array_nulls = off;
                ALTER DATABASE \(database) SET transform_null_equals = on;
                ALTER DATABASE \(database) SET quote_all_identifiers = on;
                """)
            // New sessions get the legacy settings; a pattern selects the tenants as `--match` does.
            let legacy = try TenantMigrator(connectionString: conninfo, familyDirectory: directory, policies: PolicyRegistry())
            let up = try await legacy.migrateAll(to: "v2", selection: TenantSelection(pattern: "ac*"), jobs: 1, allowDestructive: true)
            #expect(up.migrated == 1, "\(up.entries)")
            #expect(try connection.column("SELECT path FROM \(schema).item ORDER BY id", as: String.self) == Array(repeating: #"C:\temp"#, count: 3))
            let down = try await legacy.rollbackAll(to: "v1", selection: TenantSelection(pattern: "ac*"), jobs: 1)
            #expect(down.migrated == 1, "\(down.entries)")
            #expect(try connection.rows("SELECT id::text, name, tags::text FROM \(schema).item ORDER BY id") == before)
        }
    }
}
