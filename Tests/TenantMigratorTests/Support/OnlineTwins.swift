import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Tenants `online` and `twin` of one database: the first migrated online while the app writes,
/// the second, given the same writes, offline; what the online run left must equal the twin.
enum OnlineTwins {
    static let schemas = ["tenant_online", "tenant_twin"]

    /// A migrator of `family` (logging as `label`, warnings and errors only) and tenants `online` and
    /// `twin` at v1 it created, each given the same rows by `seed` (handed the tenant's schema).
    static func make(_ conninfo: String, _ family: OnlineFamilyDirectory, logger label: String,
                     seed: (Connection, String) throws -> Void) async throws -> (TenantMigrator, Connection) {
        let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: family.directory, logger: .quiet(label))
        let connection = try Connection(conninfo)
        try await create(migrator, connection, seed: seed)
        return (migrator, connection)
    }

    /// Creates tenants `online` and `twin` at v1 with `migrator`, each given the same rows by `seed`
    /// (handed `connection` and the tenant's schema).
    static func create(_ migrator: TenantMigrator, _ connection: Connection, seed: (Connection, String) throws -> Void) async throws {
        for name in ["online", "twin"] {
            _ = try await migrator.createTenant(name, version: "v1")
            try seed(connection, "tenant_\(name)")
        }
    }

    /// Migrates `online` online to `version` while the app makes `writes` at the first checkpoint of
    /// each of their phases (see ``PhaseWrites``; `batchRows` rows a copy batch, catch-up never cut
    /// short), then `twin`, given the same writes, offline. Expects both migrated, the online run in
    /// a shadow and every phase's writes made. Returns the online migrator as set for the run (its
    /// writes done), for a run back.
    @discardableResult
    static func migrate(
        _ migrator: TenantMigrator, _ conninfo: String, to version: String, allowDestructive: Bool = true,
        writes: [OnlinePhase: [String]], batchRows: Int, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) async throws -> TenantMigrator {
        let connection = try Connection(conninfo)
        let app = PhaseWrites(conninfo: conninfo, schema: "tenant_online", writes)
        var online = migrator
        online.settings.online.batchRows = batchRows
        online.settings.online.cutoverChanges = 1_000_000
        online.settings.online.checkpoint = app.checkpoint
        let request = MigrationRequest(.move, to: version, allowDestructive: allowDestructive, online: .on)
        let result = try await online.migrate(tenant: "online", request)
        #expect(result.outcome == .migrated, sourceLocation: sourceLocation)
        #expect(result.online?.mode == "shadow", "\(String(describing: result.online))", sourceLocation: sourceLocation)
        #expect(app.phases == Set(writes.keys), sourceLocation: sourceLocation)
        try app.replay(inSchema: "tenant_twin", on: connection)
        let offline = try await migrator.migrate(tenant: "twin", MigrationRequest(.move, to: version, allowDestructive: allowDestructive))
        #expect(offline.outcome == .migrated, sourceLocation: sourceLocation)
        return online
    }

    /// The app's next row of each `(table, columns)` (`'next'` in every column), in the online
    /// tenant and in its twin: both are made, with the same id.
    static func expectSameNextIDs(_ connection: Connection, _ inserts: [(table: String, columns: [String])],
                                  sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        for (table, columns) in inserts {
            var ids: [Int64] = []
            for schema in schemas {
                let values = columns.map { _ in "'next'" }.joined(separator: ", ")
                let insert = "INSERT INTO \(schema).\(table) (\(columns.joined(separator: ", "))) VALUES (\(values)) RETURNING id::bigint"
                do {
                    ids.append(try connection.scalar(insert, as: Int64.self))
                } catch {
                    Issue.record("\(schema).\(table): the app's next row failed: \(error)", sourceLocation: sourceLocation)
                }
            }
            #expect(ids.count == 2 && ids[0] == ids[1], "\(table): online and offline drew \(ids)", sourceLocation: sourceLocation)
        }
    }

    /// Both tenants verify clean, and no schema of an online run (`_tm_online_…`, `_tm_delta_…`) is left.
    static func expectCleanAndNothingLeft(_ migrator: TenantMigrator, _ connection: Connection,
                                          sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws {
        for report in try await migrator.verify(tenants: ["online", "twin"]) {
            #expect(report.isClean, "\(report.tenant): \(report.differences.map(\.description)) \(report.foreignObjects)", sourceLocation: sourceLocation)
        }
        try expectNoRunSchemaLeft(connection, sourceLocation: sourceLocation)
    }

    /// No schema of an online run (`_tm_online_…`, `_tm_delta_…`) is left.
    static func expectNoRunSchemaLeft(_ connection: Connection, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let left = try connection.column("SELECT nspname::text FROM pg_namespace WHERE nspname LIKE '\\_tm\\_online\\_%' OR nspname LIKE '\\_tm\\_delta\\_%'",
                                         as: String.self)
        #expect(left.isEmpty, "schemas left: \(left)", sourceLocation: sourceLocation)
    }
}
