import Foundation
import LibPQ
import Logging
import PostgresTestSupport
import TenantMigrator
import TenantMigratorTestSupport
import Testing
import TypedSQL

/// The Citus coordinator the suite runs against: `TEST_CITUS_URL` (start a cluster with
/// `scripts/citus-cluster.sh start`, which prints it). Unset, every test is skipped, and says so.
let citusURL: String? = ProcessInfo.processInfo.environment["TEST_CITUS_URL"].flatMap { $0.isEmpty ? nil : $0 }

let quietLogger = Logger.quiet("CitusTests")

/// One test's share of the shared Citus database: a catalog of its own and tenant names with a
/// prefix of their own, so tests run side by side and leave nothing behind.
struct CitusFixture {
    let conninfo: String
    let catalog: TenantCatalog
    let prefix: String
    let connection: Connection

    /// Runs `body` with a fresh fixture; afterwards drops the fixture's tenant schemas and catalog.
    static func with<T>(_ body: (CitusFixture) async throws -> T) async throws -> T {
        guard let citusURL else { throw TestFailure("TEST_CITUS_URL is not set") }
        // As in the rest of the suite: every message carries one statement (what Citus needs).
        Connection.strictOneStatementByDefault = true
        let tag = String(UInt32.random(in: .min ... .max), radix: 36)
        let connection = try Connection(citusURL, logger: quietLogger)
        let fixture = CitusFixture(conninfo: citusURL, catalog: TenantCatalog(schema: "tm_citus_" + tag), prefix: "c\(tag)_", connection: connection)
        defer { fixture.cleanUp() }
        return try await body(fixture)
    }

    /// `count` tenant names of this fixture: `<prefix>001`, …
    func names(_ count: Int, _ kind: String = "t") -> [String] {
        (1...count).map { prefix + kind + String(format: "%03d", $0) }
    }

    /// Creates a tenant of the Recipes family for each of `tenants` (named `names(1, kind)[0]`, one
    /// at a time, on this fixture's catalog) at `version`, filled with `recipes` recipes (none when
    /// 0); returns their names, in order.
    func recipesTenants(at version: String, _ tenants: (kind: String, recipes: Int)...) async throws -> [String] {
        let named = tenants.map { (name: names(1, $0.kind)[0], recipes: $0.recipes) }
        _ = try await migrator().createTenants(named.map(\.name), version: version, jobs: 1)
        for tenant in named where tenant.recipes > 0 {
            try connection.loadRecipes(tenants: [tenant.name], version: version, recipes: tenant.recipes)
        }
        return named.map(\.name)
    }

    /// Runs `body` with a login role of this fixture (`<prefix>app`, as an app's) that may use
    /// `schema` and read and write its Recipes tables `recipe` and `recipe_ingredient`; the role is
    /// dropped afterwards, with what it was granted.
    func withAppRole<T>(on schema: String, _ body: (_ role: String) async throws -> T) async throws -> T {
        let role = prefix + "app"
        try connection.execute("CREATE ROLE \(id: role) LOGIN")
        defer {
            _ = try? connection.execute("DROP OWNED BY \(id: role)")
            _ = try? connection.execute("DROP ROLE \(id: role)")
        }
        try connection.execute("GRANT USAGE ON SCHEMA \(SQL.schema) TO \(id: role)", schema: schema)
        try connection.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON \(table: "recipe"), \(table: "recipe_ingredient") TO \(id: role)", schema: schema)
        return try await body(role)
    }

    /// The facade over the Recipes family and its Swift policies, on this fixture's catalog.
    /// `migrator` set for an online run of tenant schema `schema` whose app makes `writes` (`S.` for
    /// the schema) once, on a connection of its own, at the first catch-up round (`batchRows` rows a
    /// copy batch, catch-up never cut short); `written` says whether it did.
    func writingAtCatchUp(_ migrator: TenantMigrator, _ writes: [String], inSchema schema: String, batchRows: Int, written: Locked<Bool>) -> TenantMigrator {
        var online = migrator
        let conninfo = self.conninfo
        online.settings.online.batchRows = batchRows
        online.settings.online.cutoverChanges = 1_000_000
        online.settings.online.checkpoint = { checkpoint in
            guard checkpoint.phase == .catchingUp, written.withLock({ done in defer { done = true }; return !done }) else { return }
            let app = try Connection(conninfo)
            for write in writes { _ = try app.execute(unsafeSQL: write.replacingOccurrences(of: "S.", with: schema + ".")) }
        }
        return online
    }

    func migrator(lockTimeout: Duration? = nil, maxAttempts: Int? = nil) throws -> TenantMigrator {
        try makeRecipesMigrator(conninfo, catalog: catalog, lockTimeout: lockTimeout, maxAttempts: maxAttempts, logger: quietLogger)
    }

    /// Each of this fixture's tenant schemas, with the worker ports its tables' shards are on.
    func nodesBySchema() throws -> [String: Set<Int>] {
        var nodes: [String: Set<Int>] = [:]
        for row in try connection.execute("""
            SELECT n.nspname::text, s.nodeport
            FROM pg_catalog.pg_dist_partition p
            JOIN pg_catalog.pg_class c ON c.oid = p.logicalrelid
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            JOIN citus_shards s ON s.table_name = p.logicalrelid
            WHERE n.nspname LIKE $1
            """, ["tenant\\_" + prefix.replacingOccurrences(of: "_", with: "\\_") + "%"]) {
            nodes[try row.decode(String.self, at: 0), default: []].insert(try row.decode(Int.self, at: 1))
        }
        return nodes
    }

    /// Whether `schema` is a distributed schema.
    func isDistributed(_ schema: String) throws -> Bool {
        try connection.scalar("SELECT EXISTS (SELECT FROM pg_catalog.pg_dist_schema WHERE schemaid::regnamespace::text = $1)", [schema])
    }

    /// Prepared (two-phase) transactions left on the coordinator and on every worker, of any
    /// database: the suite runs its tests one at a time (`.serialized`), so none of another test's
    /// commits can be in flight.
    func preparedTransactions() throws -> Int {
        let local: Int = try connection.scalar("SELECT count(*)::int FROM pg_catalog.pg_prepared_xacts")
        let remote = try connection.execute("SELECT result FROM run_command_on_workers('SELECT count(*) FROM pg_catalog.pg_prepared_xacts')")
            .map { Int(try $0.decode(String.self, at: 0)) ?? -1 }
        return local + remote.reduce(0, +)
    }

    /// A connection straight to the worker that holds `schema`'s tables (as an application or a
    /// DBA on that node would open), with changes to shards allowed.
    func workerConnection(holding schema: String) throws -> (connection: Connection, shard: (String) throws -> String) {
        let port: Int = try connection.scalar("""
            SELECT DISTINCT s.nodeport FROM citus_shards s
            JOIN pg_catalog.pg_class c ON c.oid = s.table_name JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = $1
            """, [schema])
        var components = URLComponents(string: conninfo)!
        components.port = port
        let worker = try Connection(components.string!, logger: quietLogger)
        try worker.execute("SELECT pg_catalog.set_config('citus.enable_manual_changes_to_shards', 'on', false)")
        let connection = self.connection
        return (worker, { table in
            try connection.execute(
                "SELECT shard_name::text FROM citus_shards WHERE table_name = $1::regclass",
                [connection.quoteIdentifier(schema) + "." + connection.quoteIdentifier(table)]
            ).first!.decode(String.self, at: 0)
        })
    }

    private func cleanUp() {
        let pattern = "tenant\\_" + prefix.replacingOccurrences(of: "_", with: "\\_") + "%"
        let schemas = (try? connection.execute("SELECT nspname::text FROM pg_catalog.pg_namespace WHERE nspname LIKE $1", [pattern])
            .map { try $0.decode(String.self, at: 0) }) ?? []
        for schema in schemas + [catalog.schema] {
            _ = try? connection.execute(unsafeSQL: "DROP SCHEMA IF EXISTS \(connection.quoteIdentifier(schema)) CASCADE")
        }
    }
}
