import EntityModel
import Foundation
import LibPQ
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// Issue 34: the inferred changes of PostgreSQL's own terms migrate online while the app writes,
/// and end as their offline twin's (rows, catalog, archive, the key's next id), both ways: a
/// `varchar` lengthened and one shortened, a `numeric`'s precision and scale, a check added, a
/// composite unique added, a default changed, `date` ↔ `timestamp`, and the key's generation
/// (`serial` → identity ALWAYS in v2, ALWAYS → BY DEFAULT in v3).
@Suite("Online runs of inferred changes of PostgreSQL types, checks, uniques, defaults and keys", .serialized)
struct OnlineRunModelChangesTests {
    static let v1 = """
        entities:
          Item:
            key: { type: serial }
            attributes:
              code: { type: varchar(20), allowsNarrowing: true }
              label: { type: varchar(40), allowsNarrowing: true }
              price: { type: "numeric(10,2)", default: "0.00", allowsNarrowing: true }
              qty: { type: integer, default: 1 }
              bin: { type: varchar(10), optional: true }
              dueOn: { type: pg.date, optional: true, allowsNarrowing: true }
              seenAt: { type: timestamp, optional: true, allowsNarrowing: true }
        """

    /// Every column change at once (they do not interact), and the key from `serial` to an identity
    /// generated always.
    static let v2 = """
        entities:
          Item:
            key: { type: integer, identity: always }
            attributes:
              code: { type: varchar(40), allowsNarrowing: true }
              label: { type: varchar(10), allowsNarrowing: true }
              price: { type: "numeric(12,3)", default: "0.000", allowsNarrowing: true }
              qty: { type: integer, default: 5, check: "qty >= 0" }
              bin: { type: varchar(10), optional: true }
              dueOn: { type: timestamp, optional: true, allowsNarrowing: true }
              seenAt: { type: pg.date, optional: true, allowsNarrowing: true }
            uniques:
              - [code, bin]
        """

    /// The identity from ALWAYS to BY DEFAULT, with a column dropped (archived), so the step moves
    /// data and runs in a shadow.
    static let v3 = v2.replacingOccurrences(of: "identity: always", with: "identity: byDefault")
        .replacingOccurrences(of: "      bin: { type: varchar(10), optional: true }\n", with: "")
        .replacingOccurrences(of: "[code, bin]", with: "[code, label]")

    static var versions: [(String, String)] { [("v1", v1), ("v2", v2), ("v3", v3)] }

    /// The app's writes at each phase, valid at v1 and at v2 (labels of 10 characters at most,
    /// quantities not below 0, (code, bin) and (code, label) unique).
    static let writes: [OnlinePhase: [String]] = [
        .copying: ["INSERT INTO S.item (code, label, price, qty, bin, due_on, seen_at) VALUES ('c-new', 'copying', 12.34, 3, 'b1', '2025-02-03', '2025-02-03 10:11:12.5')",
                   "UPDATE S.item SET label = 'upd', price = 99.99, due_on = '2024-12-31' WHERE id = 2", "DELETE FROM S.item WHERE id = 3"],
        .built: ["INSERT INTO S.item (code, label) VALUES ('b-new', 'built')", "UPDATE S.item SET seen_at = '2025-06-01 23:59:59', qty = 0 WHERE id = 4",
                 "DELETE FROM S.item WHERE id = 5"],
        .catchingUp: ["INSERT INTO S.item (code, label, bin) VALUES ('k-new', 'caught', 'b9')", "UPDATE S.item SET code = 'k-upd', bin = NULL WHERE id = 6"],
    ]

    func seed(_ connection: Connection, _ schema: String) throws {
        try connection.fixtureScript("""
            INSERT INTO \(schema).item (code, label, price, qty, bin, due_on, seen_at)
            SELECT 'c' || i, 'l' || i, i * 1.25, i % 7, CASE WHEN i % 3 = 0 THEN NULL ELSE 'b' || (i % 4) END,
                   CASE WHEN i % 2 = 0 THEN date '2024-01-01' + i END, CASE WHEN i % 5 <> 0 THEN timestamp '2024-03-01 08:30:15.25' + i * interval '7 hours' END
            FROM generate_series(1, 40) AS i
            """)
    }

    /// Tenants `online` and `twin` at v1 with the same rows.
    func twins(_ conninfo: String, _ family: OnlineFamilyDirectory) async throws -> (TenantMigrator, Connection) {
        try await OnlineTwins.make(conninfo, family, logger: "OnlineModelChanges", seed: seed)
    }

    /// What two tenants must share: every row and archive entry, the catalog (names of the schema
    /// aside) and where each sequence stands.
    func contents(_ schema: String, at version: String, family: URL, on connection: Connection) throws -> [String] {
        let model = try #require(try ModelFamily.load(from: family).version(named: version))
        let rows = try tenantContents(schema: schema, version: model, on: connection).sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        return rows + (try connection.keyedCatalogShape(of: schema)) + (try connection.sequenceValues(of: schema))
    }

    /// Migrates `online` online to `to` with the app's writes at each phase, and `twin`, given the
    /// same writes, offline; both end alike.
    func migrateBoth(_ migrator: TenantMigrator, _ conninfo: String, family: URL, to: String, writes: [OnlinePhase: [String]]) async throws {
        let connection = try Connection(conninfo)
        try await OnlineTwins.migrate(migrator, conninfo, to: to, writes: writes, batchRows: 9)
        let (a, b) = (try contents("tenant_online", at: to, family: family, on: connection), try contents("tenant_twin", at: to, family: family, on: connection))
        #expect(a == b, "online and offline differ at \(to): online only \(a.filter { !b.contains($0) }), offline only \(b.filter { !a.contains($0) })")
        try await OnlineTwins.expectCleanAndNothingLeft(migrator, connection)
    }

    @Test(arguments: ["v2", "v3"])
    func inferredChangesMigrateOnlineUnderAppWritesAndBackAsOffline(to target: String) async throws {
        let family = try OnlineFamilyDirectory("Stock", versions: Self.versions)
        defer { family.remove() }
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection) = try await twins(conninfo, family)
            try await migrateBoth(migrator, conninfo, family: family.directory, to: target, writes: Self.writes)
            #expect(try connection.scalar("SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'tenant_online.item'::regclass AND attname = 'price'",
                                          as: String.self) == "numeric(12,3)")
            #expect(try connection.scalar("SELECT attidentity::text FROM pg_attribute WHERE attrelid = 'tenant_online.item'::regclass AND attname = 'id'",
                                          as: String.self) == (target == "v2" ? "a" : "d"))
            OnlineTwins.expectSameNextIDs(connection, [("item", ["code", "label"])])
            try await migrateBoth(migrator, conninfo, family: family.directory, to: "v1", writes: [.copying: ["UPDATE S.item SET label = 'down', qty = 2 WHERE id = 7"]])
            OnlineTwins.expectSameNextIDs(connection, [("item", ["code", "label"])])
        }
    }

    /// During the copy or catch-up the app writes a row that v2's check or composite unique rejects,
    /// or whose label does not fit the narrowed `varchar(10)`: the run fails naming the row and the SQLSTATE,
    /// as the offline twin's migration with the same row does, and the tenant stays at v1 with its
    /// rows and the app's write, no shadow left.
    @Test(arguments: [
        (OnlinePhase.copying, "INSERT INTO S.item (code, label, qty) VALUES ('neg', 'neg', -1)", "23514", "row id 41"),
        (.copying, "INSERT INTO S.item (code, label, bin) VALUES ('c1', 'dup', 'b1')", "23505", "row id 41"),
        (.copying, "UPDATE S.item SET label = 'a label much too long' WHERE id = 8", "22001", "row id 8 holds \"a label much too long\""),
        (.catchingUp, "UPDATE S.item SET qty = -3 WHERE id = 9", "23514", "row id 9"),
        (.catchingUp, "UPDATE S.item SET label = 'too long for ten' WHERE id = 8", "22001", "row id 8 holds \"too long for ten\""),
    ])
    func aWriteDuringTheRunThatV2RejectsFailsTheRunAsOffline(phase: OnlinePhase, statement: String, sqlstate: String, row: String) async throws {
        let family = try OnlineFamilyDirectory("Stock", versions: Self.versions)
        defer { family.remove() }
        // A value that does not fit is traced to the step that narrows its column, a violated
        // constraint to the step that makes it, online too.
        try await expectBothFail(family, phase: phase, statement: statement, sqlstate: sqlstate, row: row, step: "v1 → v2: inferred", seed: seed)
    }

    /// During the copy or catch-up the app writes a NULL into a column that v2 makes required (NOT
    /// NULL: PostgreSQL names no constraint, only the table and the column): an optional `bin` made
    /// required, a new required `shelf` the mapping fills from `note`. The run fails naming the
    /// step, the entity, the row, the column and the SQLSTATE, as the offline twin's migration with
    /// the same row does, and the tenant stays at v1 with its rows and the app's write, no shadow left.
    @Test(arguments: [
        (OnlinePhase.copying, "INSERT INTO S.item (code, bin, note) VALUES ('new', NULL, 'n')", "row id 41 violates NOT NULL on bin"),
        (.copying, "UPDATE S.item SET note = NULL WHERE id = 8", "row id 8 violates NOT NULL on shelf"),
        (.catchingUp, "UPDATE S.item SET bin = NULL WHERE id = 9", "row id 9 violates NOT NULL on bin"),
        (.catchingUp, "INSERT INTO S.item (code, bin) VALUES ('new', 'b')", "row id 41 violates NOT NULL on shelf"),
    ])
    func aNullTheAppWritesIntoAColumnV2MakesRequiredFailsTheRunAsOffline(phase: OnlinePhase, statement: String, row: String) async throws {
        try await expectShelvesFail(phase: phase, statement: statement, sqlstate: "23502", row: "Item \(row) (table item)")
    }

    /// During the copy or catch-up the app writes an empty note, which the mapping's expression for
    /// `shelf` divides by: the run fails in the mapping's step with the SQLSTATE (22012), as offline,
    /// where the step's own statement fails; the tenant stays at v1, no shadow left.
    @Test(arguments: [OnlinePhase.copying, .catchingUp])
    func aValueTheAppWritesThatTheMappingCannotTakeFailsTheRunInItsStep(phase: OnlinePhase) async throws {
        try await expectShelvesFail(phase: phase, statement: "UPDATE S.item SET note = '' WHERE id = 9", sqlstate: "22012", row: "division by zero")
    }

    /// ``expectBothFail(_:phase:statement:sqlstate:row:step:seed:sourceLocation:)`` in the family
    /// ``RequiredColumnsFamily`` with its mapping, 40 items, each with a bin and a note.
    func expectShelvesFail(phase: OnlinePhase, statement: String, sqlstate: String, row: String,
                           sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws {
        let family = try OnlineFamilyDirectory("Shelves", versions: RequiredColumnsFamily.versions, mappings: [("v1-to-v2", RequiredColumnsFamily.up)])
        defer { family.remove() }
        try await expectBothFail(family, phase: phase, statement: statement, sqlstate: sqlstate, row: row, step: "v1 → v2: mapped",
                                 seed: { connection, schema in
                                     try connection.fixtureScript("INSERT INTO \(schema).item (code, bin, note) SELECT 'c' || i, 'b' || (i % 4), 'n' || i FROM generate_series(1, 40) AS i")
                                 }, sourceLocation: sourceLocation)
    }

    /// Tenants `online` and `twin` of `family` at v1, given the same rows by `seed`; the app's
    /// `statement` at `phase` of `online`'s online run to v2, and before `twin`'s offline one. Both
    /// fail naming `sqlstate`, `row` and the step (`failed in step` `step`); both stay at v1 with
    /// the same rows, nothing of the run left.
    func expectBothFail(
        _ family: OnlineFamilyDirectory, phase: OnlinePhase, statement: String, sqlstate: String, row: String, step: String,
        seed: @escaping (Connection, String) throws -> Void, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, connection) = try await OnlineTwins.make(conninfo, family, logger: "OnlineModelChanges", seed: seed)
            let app = PhaseWrites(conninfo: conninfo, schema: "tenant_online", [phase: [statement]])
            var online = migrator
            online.settings.online.batchRows = 9
            online.settings.online.checkpoint = app.checkpoint
            var failures: [String] = []
            do {
                _ = try await online.migrate(tenant: "online", MigrationRequest(.move, to: "v2", allowDestructive: true, online: .on))
            } catch { failures.append("\(error)") }
            #expect(app.phases == [phase], sourceLocation: sourceLocation)
            try app.replay(inSchema: "tenant_twin", on: connection)
            do {
                _ = try await migrator.migrate(tenant: "twin", MigrationRequest(.move, to: "v2", allowDestructive: true))
            } catch { failures.append("\(error)") }
            #expect(failures.count == 2, "online and offline must both fail: \(failures)", sourceLocation: sourceLocation)
            for (failure, name) in zip(failures, ["online", "twin"]) {
                #expect(failure.contains("tenant \(name)"), "\(failure)", sourceLocation: sourceLocation)
                #expect(failure.contains(sqlstate), "\(failure)", sourceLocation: sourceLocation)
                #expect(failure.contains(row), "\(failure)", sourceLocation: sourceLocation)
                #expect(failure.contains("failed in step \(step)"), "\(failure)", sourceLocation: sourceLocation)
            }
            for name in ["online", "twin"] {
                #expect(try connection.tenantVersions()[name]?.version == "v1", sourceLocation: sourceLocation)
            }
            #expect(try contents("tenant_online", at: "v1", family: family.directory, on: connection)
                        == contents("tenant_twin", at: "v1", family: family.directory, on: connection), sourceLocation: sourceLocation)
            try OnlineTwins.expectNoRunSchemaLeft(connection, sourceLocation: sourceLocation)
        }
    }
}
