import EntityModel
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 34: a key that changes between `serial` and an identity (either way, and an identity
/// between `byDefault` and `always`) is inferred in the catalog only: the key's sequence keeps its
/// position (the next id follows the last one drawn), takes the new version's options and name,
/// and the tenant verifies clean at each end; the way back is the same change backwards.
@Suite("A key between serial and identity")
struct InferredChangesKeyGenerationTests {
    static func family() throws -> ModelFamily {
        let versions = [
            ("v1", "key: { type: serial }", "key: { type: bigint, identity: byDefault }"),
            ("v2", "key: { type: integer, identity: always, start: 100, increment: 10 }", "key: { type: bigserial, start: 7 }"),
        ]
        return try ModelFamily(name: "KeyGen", versions: versions.map { name, account, ticket in
            try ModelVersion(name: name, yaml: """
                entities:
                  Account:
                    \(account)
                    attributes:
                      name: { type: string, optional: true }
                  Ticket:
                    \(ticket)
                    attributes:
                      title: { type: string, optional: true }
                """, file: "KeyGen/\(name).yaml")
        })
    }

    @Test func aTenantChangesItsKeysUpAndBackKeepingThePositions() async throws {
        try await TestPostgres.withDatabase { connection in
            let family = try Self.family()
            let tenant = try CatalogTenant(of: family, on: connection)
            let schema = tenant.schema
            func next(_ table: String) throws -> Int64 {
                try connection.scalar("INSERT INTO \(schema).\(table) DEFAULT VALUES RETURNING id", as: Int64.self)
            }
            /// Each key column's default and identity, and each sequence with its owner and options.
            func keys() throws -> [String] {
                try connection.column("""
                    SELECT c.relname || '.id ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '') || ' ' || a.attidentity::text
                    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                    WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r' AND a.attname = 'id' AND c.relname NOT LIKE '\\_tm\\_%'
                    ORDER BY 1
                    """, [schema], as: String.self).map { $0.replacingOccurrences(of: "'\(schema).", with: "'S.") }
                    + connection.column("""
                    SELECT sequencename || ' ' || data_type::text || ' ' || start_value || ' ' || increment_by FROM pg_sequences WHERE schemaname = $1 ORDER BY 1
                    """, [schema], as: String.self)
            }
            // The sequences of a tenant made at v2, to compare with.
            let made = try tenant.lifecycle.create(try TenantName("made"), version: "v2", on: connection)
            let madeAtV2 = try connection.column("""
                SELECT sequencename || ' ' || data_type::text || ' ' || start_value || ' ' || increment_by FROM pg_sequences WHERE schemaname = $1 ORDER BY 1
                """, [made.schema], as: String.self)
            for _ in 1...3 { _ = try next("account"); _ = try next("ticket") }
            let v1Keys = try keys()

            let up = try tenant.migrate(.migrate(to: "v2"), on: connection)
            #expect(up.outcome == .migrated, "\(up)")
            let report = try tenant.verify(on: connection)
            #expect(report.isClean, "\(report.differences.map(\.description)) \(report.foreignObjects)")
            #expect(try connection.column("""
                SELECT sequencename || ' ' || data_type::text || ' ' || start_value || ' ' || increment_by FROM pg_sequences WHERE schemaname = $1 ORDER BY 1
                """, [schema], as: String.self) == madeAtV2)
            // The positions are kept: the next ids follow the last drawn (3) by the new increments.
            #expect(try next("account") == 13)
            #expect(try next("ticket") == 4)
            do {
                _ = try connection.scalar("INSERT INTO \(schema).account (id, name) VALUES (99, 'y') RETURNING id", as: Int64.self)
                Issue.record("an id given for a GENERATED ALWAYS key was taken")
            } catch {
                #expect("\(error)".contains("428C9"), "\(error)")
            }

            let down = try tenant.migrate(.rollback(to: "v1"), on: connection)
            #expect(down.outcome == .migrated, "\(down)")
            #expect(try tenant.verify(on: connection).isClean)
            #expect(try keys() == v1Keys)
            #expect(try next("account") == 14)
            #expect(try next("ticket") == 5)
        }
    }
}
