import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing
import TypedSQL

/// `migrate --online` on Citus (docs/Citus.md, "Online migrations on Citus"): the run builds its
/// shadow inside the tenant's schema, captures the app's writes on the worker, and swaps by renames.
extension CitusTests {
    /// Recipes v2 → v3 online, with the family's own mapping and its two Swift policies, and with the
    /// declarative mappings. The run is *shadow*: the steps run on the shadow before the cutover,
    /// and catch-up rounds bring the app's changes in. An app session writes while the run
    /// prepares, copies, builds and catches up (at its checkpoints, on a connection of its own:
    /// inserts of recipes with ingredients, updates of names and units of rows already copied,
    /// deletes), and the same writes go to a twin; one more
    /// write, sent from a thread of its own while the cutover holds the tables, waits and then lands
    /// on the new version. The twin, migrated offline, ends equal: tables, columns in order,
    /// constraints, indexes, rows and archive entries; one colocation group, nothing of the run
    /// left, no prepared transaction. Then v3 → v2 online ends as the twin's rollback offline.
    @Test(arguments: [false, true])
    func onlineOnCitusMigratesRecipesWithAConcurrentWriterAndEndsAsOffline(declarative: Bool) async throws {
        try await CitusFixture.with { fixture in
            var migrator = try fixture.onlineMigrator(declarative: declarative)
            let tenant = fixture.names(1, "online")[0], twin = fixture.names(1, "twin")[0]
            let schema = "tenant_" + tenant, twinSchema = "tenant_" + twin
            _ = try await migrator.createTenants([tenant, twin], version: "v2", jobs: 1)
            try fixture.placeOnTheSameWorker(twinSchema, as: schema)
            try fixture.connection.loadRecipes(tenants: [tenant, twin], version: "v2", recipes: 30)
            for table in ["recipe", "recipe_ingredient"] {
                #expect(try fixture.connection.rows(of: schema, table) == fixture.connection.rows(of: twinSchema, table), "\(table) before the run")
            }
            let app = AppWriter(conninfo: fixture.conninfo, schemas: [schema, twinSchema], writes: AppWriter.atV2)
            let late = LateWriter(conninfo: fixture.conninfo, schema: schema)
            migrator.settings.online.batchRows = 15
            migrator.settings.online.checkpoint = { checkpoint in
                switch checkpoint.phase {
                case .prepared, .copying, .built, .catchingUp: try app.write()
                case .cutoverLocked: late.start()
                default: break
                }
            }
            let result = try await migrator.migrate(tenant: tenant, .migrate(to: "v3", online: .on))
            try late.join()
            #expect(result.outcome == .migrated)
            let online = try #require(result.online)
            #expect(online.mode == "shadow", "\(online)")
            #expect(online.rounds >= 2 && online.rowsMigratedAgain > 0, "\(online)")
            #expect(online.rowsCopied >= 120 && online.changesCaughtUp >= app.count, "\(online)")
            #expect(app.count >= 8, "\(app.count) writes")

            _ = try await migrator.migrate(tenant: twin, .migrate(to: "v3"))
            try late.replay(inSchema: twinSchema, on: fixture.connection)
            let connection = fixture.connection
            #expect(try connection.relations(of: schema, like: "\\_tm\\_%").filter { !$0.hasPrefix("_tm_archive") }.isEmpty)
            #expect(try connection.scalar("SELECT count(*)::int FROM pg_catalog.pg_trigger WHERE tgrelid::regclass::text LIKE $1 AND NOT tgisinternal",
                                          [schema + ".%"], as: Int.self) == 0)
            #expect(try connection.scalar("SELECT count(*)::int FROM pg_catalog.pg_proc WHERE pronamespace = $1::regnamespace", [schema], as: Int.self) == 0)
            let layout = try connection.layout(of: schema), twinLayout = try connection.layout(of: twinSchema)
            #expect(layout == twinLayout, "only here: \(Set(layout).subtracting(twinLayout).sorted()); only in the twin: \(Set(twinLayout).subtracting(layout).sorted())")
            let destination = try #require(try recipesFamily().version(named: "v3")).relationalSchema().tables.map(\.name)
            for table in destination {
                let rows = try connection.rows(of: schema, table), twinRows = try connection.rows(of: twinSchema, table)
                #expect(rows == twinRows, "\(table): only here \(Set(rows).subtracting(twinRows).sorted().prefix(5)); only in the twin \(Set(twinRows).subtracting(rows).sorted().prefix(5))")
            }
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).recipe WHERE name LIKE '%(app)'", as: Int.self) > 0)
            #expect(try connection.scalar("SELECT count(*)::int FROM \(schema).recipe WHERE name LIKE '%(late)'", as: Int.self) == 1)
            let archive = try connection.archiveEntries(of: schema)
            #expect(!archive.isEmpty)
            let twinArchive = try connection.archiveEntries(of: twinSchema)
            #expect(archive == twinArchive, "only here: \(Set(archive).subtracting(twinArchive).sorted().prefix(5)); only in the twin: \(Set(twinArchive).subtracting(archive).sorted().prefix(5))")
            #expect(try fixture.colocationGroups(of: schema).count == 1)
            #expect(try fixture.preparedTransactions() == 0)

            // And back online, while the app renames recipes and deletes recipe ingredients: v3 → v2
            // gives back what the archive keeps, as the twin's offline rollback of the same data.
            let appAtV3 = AppWriter(conninfo: fixture.conninfo, schemas: [schema, twinSchema], writes: AppWriter.atV3)
            migrator.settings.online.checkpoint = { checkpoint in
                if [.prepared, .copying, .built, .catchingUp].contains(checkpoint.phase) { try appAtV3.write() }
            }
            let back = try await migrator.migrate(tenant: tenant, .rollback(to: "v2", online: .on))
            #expect(appAtV3.count >= 4, "\(appAtV3.count) writes")
            #expect(back.outcome == .migrated && back.online?.mode == "shadow", "\(back)")
            _ = try await migrator.migrate(tenant: twin, .rollback(to: "v2"))
            #expect(try connection.layout(of: schema) == connection.layout(of: twinSchema))
            for table in ["recipe", "recipe_ingredient"] {
                #expect(try connection.rows(of: schema, table) == connection.rows(of: twinSchema, table), "\(table) after the rollback")
            }
            // (As on plain PostgreSQL, an online run archives links without their target, which
            // catch-up could not keep current: compared without it, as the online suites do.)
            let archiveBack = try connection.archiveEntries(of: schema, withoutTargets: true)
            let twinArchiveBack = try connection.archiveEntries(of: twinSchema, withoutTargets: true)
            #expect(archiveBack == twinArchiveBack, "only here: \(Set(archiveBack).subtracting(twinArchiveBack).sorted().prefix(5)); only in the twin: \(Set(twinArchiveBack).subtracting(archiveBack).sorted().prefix(5))")
            #expect(try connection.relations(of: schema, like: "\\_tm\\_%").filter { !$0.hasPrefix("_tm_archive") }.isEmpty)
            #expect(try fixture.colocationGroups(of: schema).count == 1)
            print("Citus online (\(declarative ? "declarative" : "policies")): \(online.rowsCopied) rows copied, \(online.changesCaughtUp) changes, "
                + "\(app.count) app writes during the copy, writes waited \(Int(online.writesBlockedMilliseconds)) ms, reads \(Int(online.readsBlockedMilliseconds)) ms")
        }
    }
}

extension CitusTests {
    /// `plan` for a Citus tenant says how its steps run online there: on the shadow and caught up,
    /// as on plain PostgreSQL (*shadow*), the shadow built in the tenant's schema.
    @Test func onlineOnCitusPlanSaysTheStepsRunOnTheShadow() async throws {
        try await CitusFixture.with { fixture in
            let migrator = try fixture.migrator()
            let tenant = try await fixture.recipesTenants(at: "v2", ("plan", 0))[0]
            let document = try await migrator.planDocument(tenant: tenant, to: "v3")
            let modes = document.sections.compactMap(\.online)
            #expect(modes.count == 1 && modes.allSatisfy { $0.kind == .shadow }, "\(modes)")
            #expect(document.onlineLayout == .tenantSchema)
        }
    }
}

extension CitusFixture {
    /// Moves `schema` to the worker that holds `other` (`citus_schema_move`, blocking writes): the
    /// identities of both then draw from the same node's range, so a twin gets the same ids.
    func placeOnTheSameWorker(_ schema: String, as other: String) throws {
        let node = try connection.execute("""
            SELECT DISTINCT s.nodename::text, s.nodeport FROM citus_shards s JOIN pg_catalog.pg_class c ON c.oid = s.table_name
            WHERE c.relnamespace = $1::regnamespace
            """, [other]).first!
        let (host, port) = (try node.decode(String.self, at: 0), try node.decode(Int.self, at: 1))
        let current: Int = try connection.scalar("""
            SELECT DISTINCT s.nodeport FROM citus_shards s JOIN pg_catalog.pg_class c ON c.oid = s.table_name WHERE c.relnamespace = $1::regnamespace
            """, [schema])
        if current != port {
            try connection.execute("SELECT citus_schema_move($1::regnamespace, $2::text, $3::int, shard_transfer_mode => 'block_writes')", [schema, host, port])
        }
    }

    /// The Recipes migrator, with the family's own v2 → v3 (its Swift policies) or the declarative one.
    func onlineMigrator(declarative: Bool) throws -> TenantMigrator {
        guard declarative else { return try migrator() }
        return try TenantMigrator(connectionString: conninfo, familyDirectory: recipesDirectory,
                                  mappingsDirectory: recipesDirectory.appendingPathComponent("Mappings/Declarative"),
                                  policies: RecipesPolicies.registry, catalog: catalog, logger: quietLogger)
    }
}

/// An app that writes the same statements to the migrating tenant and to its twin, one write per
/// call, on a connection of its own (the run's checkpoints call it: no timing involved).
final class AppWriter: Sendable {
    let conninfo: String
    let schemas: [String]
    /// The statements of the `n`th write.
    let writes: @Sendable (Int) -> [SQL]
    private let done = Locked(0)

    init(conninfo: String, schemas: [String], writes: @escaping @Sendable (Int) -> [SQL]) {
        self.conninfo = conninfo
        self.schemas = schemas
        self.writes = writes
    }

    var count: Int { done.value }

    /// The next write, on every schema.
    func write() throws {
        let n = done.withLock { count in
            defer { count += 1 }
            return count
        }
        let app = try Connection(conninfo, logger: quietLogger)
        for schema in schemas {
            for statement in writes(n) { try app.execute(statement, schema: schema) }
        }
    }

    /// At v2: an insert of a recipe with an ingredient, an update of an ingredient's name and
    /// unit, or a delete of one, in turn.
    static let atV2: @Sendable (Int) -> [SQL] = { n in
        switch n % 3 {
        case 0: [
            "INSERT INTO \(table: "recipe") (name, type, servings, method) SELECT name || ' (app)', type, servings, method FROM \(table: "recipe") "
                + "WHERE id = (SELECT min(id) + \(bind: n) FROM \(table: "recipe"))",
            "INSERT INTO \(table: "recipe_ingredient") (recipe_id, name, quantity, unit_of_measure) "
                + "SELECT (SELECT max(id) FROM \(table: "recipe")), \(bind: "App ingredient \(n)"), 2, 'g'",
        ]
        case 1: [
            "UPDATE \(table: "recipe_ingredient") SET name = \(bind: "Renamed \(n)"), unit_of_measure = 'kg' "
                + "WHERE id = (SELECT min(id) + \(bind: n) FROM \(table: "recipe_ingredient"))",
        ]
        default: [
            "DELETE FROM \(table: "recipe_ingredient") WHERE id = (SELECT min(id) + \(bind: n) FROM \(table: "recipe_ingredient"))",
        ]
        }
    }

    /// At v3: a recipe renamed, or a recipe ingredient deleted, in turn.
    static let atV3: @Sendable (Int) -> [SQL] = { n in
        n % 2 == 0
            ? ["UPDATE \(table: "recipe") SET name = name || \(bind: " (back \(n))") WHERE id = (SELECT min(id) + \(bind: n) FROM \(table: "recipe"))"]
            : ["DELETE FROM \(table: "recipe_ingredient") WHERE id = (SELECT min(id) + \(bind: n) FROM \(table: "recipe_ingredient"))"]
    }
}

/// One write the app sends while the cutover holds the tables: from a thread of its own, it waits
/// for the cutover's locks and runs once it committed, on the new version's `recipe`.
final class LateWriter: Sendable {
    let conninfo: String
    let schema: String
    private let state = Locked<(started: Bool, error: String?)>((false, nil))
    private let finished = DispatchSemaphore(value: 0)

    init(conninfo: String, schema: String) {
        self.conninfo = conninfo
        self.schema = schema
    }

    static let statement: SQL = "UPDATE \(table: "recipe") SET name = name || ' (late)' WHERE id = (SELECT min(id) FROM \(table: "recipe"))"

    /// Starts the write (once).
    func start() {
        guard state.withLock({ state in defer { state.started = true }; return !state.started }) else { return }
        let thread = Thread { [self] in
            do {
                let app = try Connection(conninfo, logger: quietLogger)
                try app.execute(Self.statement, schema: schema)
            } catch {
                state.withLock { $0.error = "\(error)" }
            }
            finished.signal()
        }
        thread.start()
    }

    /// Waits for the write to finish; throws its failure.
    func join() throws {
        guard state.value.started else { throw TestFailure("the cutover's checkpoint never started the late write") }
        finished.wait()
        if let error = state.value.error { throw TestFailure("the late write failed: \(error)") }
    }

    /// The same write on the twin.
    func replay(inSchema twin: String, on connection: Connection) throws {
        try connection.execute(Self.statement, schema: twin)
    }
}
