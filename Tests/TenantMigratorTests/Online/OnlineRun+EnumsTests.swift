import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Issue 34: a model with enum types of its own migrates online. The shadow's tables use types of
/// the shadow's own (made as the source version has them, changed by the steps as offline), and the
/// cutover moves them into the tenant's schema with the tables: the tenant's columns then use the
/// tenant's types, the ones the app names.
@Suite("Online runs of models with enum types", .serialized)
struct OnlineRunEnumsTests {
    static let v1 = """
        enums:
          order_status: [new, paid, shipped, lost]
        entities:
          Order:
            attributes:
              status: { type: "enum(order_status)", default: new, optional: true }
              note: { type: string, optional: true }
              amount: { type: int32, default: 0 }
        """

    /// v2 adds a value and drops `note` (archived: the step moves data, so it runs in a shadow).
    static let addedValue = v1.replacingOccurrences(of: "[new, paid, shipped, lost]", with: "[new, paid, shipped, lost, cancelled]")
        .replacingOccurrences(of: "      note: { type: string, optional: true }\n", with: "")

    /// v2 adds `draft`, renames `paid` to `settled` and removes `lost` (the type rebuilt, rows
    /// holding `lost` archived and given NULL).
    static let changedValues = v1.replacingOccurrences(of: "[new, paid, shipped, lost]",
                                                      with: "{ values: [draft, new, settled, shipped], renamed: { settled: paid } }")

    /// The app's writes at each phase: values of every kind, the removed one included.
    static let writes: [OnlinePhase: [String]] = [
        .copying: ["INSERT INTO S.\"order\" (status, note, amount) VALUES ('shipped', 'c1', 3), ('lost', 'c2', 4)",
                   "UPDATE S.\"order\" SET status = 'paid' WHERE id = 1", "DELETE FROM S.\"order\" WHERE id = 2"],
        .built: ["INSERT INTO S.\"order\" (status, note) VALUES ('new', 'b1'), (NULL, 'b2')",
                 "UPDATE S.\"order\" SET status = 'lost', amount = 9 WHERE id = 3"],
        .catchingUp: ["INSERT INTO S.\"order\" (status, note, amount) VALUES ('paid', 'k1', 7)",
                      "UPDATE S.\"order\" SET status = 'shipped' WHERE id = 4"],
    ]

    func seed(_ connection: Connection, _ schema: String) throws {
        try connection.fixtureScript("""
            INSERT INTO \(schema)."order" (status, note, amount)
            SELECT (ARRAY['new', 'paid', 'shipped', 'lost'])[1 + i % 4]::\(schema).order_status, 'n' || i, i FROM generate_series(1, 30) AS i
            """)
    }

    /// The enum type of `order.status` is the tenant's own (its schema), with these values.
    func expectTenantType(_ connection: Connection, _ schema: String, values: String) throws {
        #expect(try connection.scalar("""
            SELECT n.nspname::text FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid JOIN pg_namespace n ON n.oid = t.typnamespace
            WHERE a.attrelid = '\(schema)."order"'::regclass AND a.attname = 'status'
            """, as: String.self) == schema)
        #expect(try connection.scalar("SELECT string_agg(enumlabel::text, ',' ORDER BY enumsortorder) FROM pg_enum WHERE enumtypid = '\(schema).order_status'::regtype",
                                      as: String.self) == values)
    }

    /// Migrates `online` online to `to` with the app's writes at each phase, and `twin`, given the
    /// same writes, offline; both end with the same rows.
    func migrateBoth(_ migrator: TenantMigrator, _ conninfo: String, to: String, writes: [OnlinePhase: [String]]) async throws {
        let connection = try Connection(conninfo)
        try await OnlineTwins.migrate(migrator, conninfo, to: to, writes: writes, batchRows: 7)
        #expect(try connection.userData(of: "tenant_online") == connection.userData(of: "tenant_twin"))
        try await OnlineTwins.expectCleanAndNothingLeft(migrator, connection)
    }

    func twins(_ conninfo: String, _ family: OnlineFamilyDirectory) async throws -> (TenantMigrator, Connection) {
        try await OnlineTwins.make(conninfo, family, logger: "OnlineEnums", seed: seed)
    }

    /// A value added while the app writes values of the type: the tenant's column uses the
    /// tenant's type, the added value is usable at once, and the rows equal the offline twin's.
    @Test func aModelWithAnEnumMigratesOnlineUnderAppWritesAsItsOfflineTwin() async throws {
        let family = try OnlineFamilyDirectory("Orders", versions: [("v1", Self.v1), ("v2", Self.addedValue)])
        defer { family.remove() }
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection) = try await twins(conninfo, family)
            try await migrateBoth(migrator, conninfo, to: "v2", writes: Self.writes)
            try expectTenantType(connection, "tenant_online", values: "new,paid,shipped,lost,cancelled")
            // The app writes the added value, into the tenant's type, the moment the cutover committed.
            #expect(try connection.scalar("INSERT INTO tenant_online.\"order\" (status) VALUES ('cancelled') RETURNING status::text", as: String.self) == "cancelled")
            // And back, online: the added value's rows are archived (NULL), as offline.
            _ = try connection.fixtureScript("INSERT INTO tenant_twin.\"order\" (status) VALUES ('cancelled')")
            try await migrateBoth(migrator, conninfo, to: "v1", writes: [.copying: ["UPDATE S.\"order\" SET status = 'cancelled' WHERE id = 5"]])
            try expectTenantType(connection, "tenant_online", values: "new,paid,shipped,lost")
        }
    }

    /// Values added, renamed and removed online, and back: as offline both ways, the removed
    /// value's rows given back by the way down.
    @Test func aV2ThatAddsRenamesAndRemovesValuesMigratesOnlineAndBackAsOffline() async throws {
        let family = try OnlineFamilyDirectory("Orders", versions: [("v1", Self.v1), ("v2", Self.changedValues)])
        defer { family.remove() }
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection) = try await twins(conninfo, family)
            let before = try connection.userData(of: "tenant_online")
            try await migrateBoth(migrator, conninfo, to: "v2", writes: Self.writes)
            try expectTenantType(connection, "tenant_online", values: "draft,new,settled,shipped")
            #expect(try connection.scalar("SELECT count(*)::int FROM tenant_online.\"order\" WHERE status = 'settled'", as: Int.self) > 0)
            try await migrateBoth(migrator, conninfo, to: "v1", writes: [:])
            try expectTenantType(connection, "tenant_online", values: "new,paid,shipped,lost")
            #expect(try connection.scalar("SELECT count(*)::int FROM tenant_online.\"order\" WHERE status = 'lost'", as: Int.self) > 0)
            #expect(try connection.userData(of: "tenant_online") != before, "the app's writes are kept")
        }
    }

    /// Issue 34: a check and a partial index that compare with a value of the type (as `model
    /// import` writes them, a cast to it) are made in the shadow and kept through the rebuild, online
    /// as offline, both ways.
    @Test func aCheckAndAPartialIndexOverTheTypeMigrateOnlineAndBackAsOffline() async throws {
        let expressions = """
                indexes:
                  - { on: [amount], where: "(status <> 'shipped'::order_status)" }
                checks:
                  - "((status IS DISTINCT FROM 'shipped'::order_status) OR (amount >= 0))"

            """
        func checked(_ version: String) -> String { version.replacingOccurrences(of: "  Order:\n", with: "  Order:\n" + expressions) }
        #expect(checked(Self.v1) != Self.v1)
        let family = try OnlineFamilyDirectory("Orders", versions: [("v1", checked(Self.v1)), ("v2", checked(Self.changedValues))])
        defer { family.remove() }
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection) = try await twins(conninfo, family)
            func definitions() throws -> [String] {
                try connection.column("""
                    SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'tenant_online."order"'::regclass AND contype = 'c'
                    UNION ALL SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'tenant_online."order"'::regclass AND indpred IS NOT NULL
                    ORDER BY 1
                    """, as: String.self)
            }
            let atV1 = try definitions()
            #expect(atV1.count == 2, "\(atV1)")
            try await migrateBoth(migrator, conninfo, to: "v2", writes: Self.writes)
            try expectTenantType(connection, "tenant_online", values: "draft,new,settled,shipped")
            #expect(try definitions().count == 2)
            try await migrateBoth(migrator, conninfo, to: "v1", writes: [:])
            try expectTenantType(connection, "tenant_online", values: "new,paid,shipped,lost")
            #expect(try definitions() == atV1)
        }
    }

    /// The runner's backend terminated in the cutover, before its commit: the tenant is at v1 with
    /// its own type and rows; the rerun migrates it as offline.
    @Test(arguments: [OnlinePhase.cutoverLocked, .cutoverSwapped])
    func aCrashInTheCutoverLeavesV1AndTheRerunWorks(phase: OnlinePhase) async throws {
        let family = try OnlineFamilyDirectory("Orders", versions: [("v1", Self.v1), ("v2", Self.changedValues)])
        defer { family.remove() }
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection) = try await twins(conninfo, family)
            let before = try connection.userData(of: "tenant_online")
            var crashing = migrator
            let terminated = Locked(false)
            crashing.settings.online.checkpoint = { checkpoint in
                guard checkpoint.phase == phase, terminated.withLock({ done in defer { done = true }; return !done }) else { return }
                _ = try Connection(conninfo).execute("SELECT pg_terminate_backend($1)", [checkpoint.backendPID])
            }
            await #expect(throws: (any Error).self) {
                _ = try await crashing.migrate(tenant: "online", MigrationRequest(.move, to: "v2", allowDestructive: true, online: .on))
            }
            #expect(terminated.value)
            #expect(try connection.tenantVersions()["online"]?.version == "v1")
            #expect(try connection.userData(of: "tenant_online") == before)
            try expectTenantType(connection, "tenant_online", values: "new,paid,shipped,lost")
            #expect(try connection.scalar("INSERT INTO tenant_online.\"order\" (status) VALUES ('lost') RETURNING status::text", as: String.self) == "lost")
            _ = try connection.fixtureScript("INSERT INTO tenant_twin.\"order\" (status) VALUES ('lost')")
            try await migrateBoth(migrator, conninfo, to: "v2", writes: [:])
            try expectTenantType(connection, "tenant_online", values: "draft,new,settled,shipped")
        }
    }
}
