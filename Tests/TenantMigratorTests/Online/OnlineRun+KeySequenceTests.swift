import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import TenantMigrator
import Testing

/// Issue 34: a key's own sequence options, online. The shadow's tables take them as a new tenant's
/// do (an identity's in its column, a `serial`'s by `ALTER SEQUENCE` after the table), the step
/// changes them on the shadow, and after the cutover the tenant has the destination's options and
/// draws past every id in use, verifying clean; the way back online restores the old options.
@Suite("Online runs and a key's sequence options", .serialized)
struct OnlineRunKeySequenceTests {
    static func version(account: String, ticket: String, size: String) -> String {
        """
        entities:
          Account:
            key: { type: serial\(account) }
            attributes:
              size: { type: \(size), optional: true }
          Ticket:
            key: { type: integer, identity: byDefault\(ticket) }
            attributes:
              size: { type: \(size), optional: true }
        """
    }

    @Test func theOptionsMigrateOnlineUpAndBack() async throws {
        // int32 → int64 rewrites the tables, so the run builds a shadow.
        let versions = [
            ("v1", Self.version(account: ", start: 7, increment: 5", ticket: ", start: 100, increment: 10", size: "int32, allowsNarrowing: true")),
            ("v2", Self.version(account: ", start: 7, increment: 3, cache: 2", ticket: ", start: 100, increment: 20, maxValue: 1000000", size: "int64")),
        ]
        try await OnlineFamilyDirectory.withMigrator("KeySeqOnline", versions: versions, logger: "OnlineKeySeq") { migrator, connection, _ in
            _ = try await migrator.createTenant("online", version: "v1")
            func settings(_ sequence: String) throws -> String? {
                try connection.column("""
                    SELECT start_value || ' ' || increment_by || ' ' || max_value || ' ' || cache_size FROM pg_sequences
                    WHERE schemaname = 'tenant_online' AND sequencename = $1
                    """, [sequence], as: String.self).first
            }
            func next(_ table: String) throws -> Int64 {
                try connection.scalar("INSERT INTO tenant_online.\(table) (size) VALUES (1) RETURNING id::bigint", as: Int64.self)
            }
            #expect(try [next("account"), next("account"), next("ticket"), next("ticket")] == [7, 12, 100, 110])

            let up = try await migrator.migrate(tenant: "online", MigrationRequest(.move, to: "v2", online: .on))
            #expect(up.outcome == .migrated)
            #expect(up.online != nil && up.online?.mode != "catalog-only", "\(String(describing: up.online))")
            #expect(try settings("account_id_seq") == "7 3 2147483647 2")
            #expect(try settings("ticket_id_seq") == "100 20 1000000 1")
            #expect(try await migrator.verify(tenants: ["online"]).allSatisfy(\.isClean))
            // Past every id in use, by the new increments.
            #expect(try next("account") > 12)
            #expect(try next("ticket") > 110)

            let down = try await migrator.migrate(tenant: "online", MigrationRequest(.move, to: "v1", online: .on))
            #expect(down.outcome == .migrated)
            #expect(try settings("account_id_seq") == "7 5 2147483647 1")
            #expect(try settings("ticket_id_seq") == "100 10 2147483647 1")
            #expect(try await migrator.verify(tenants: ["online"]).allSatisfy(\.isClean))
        }
    }
}
