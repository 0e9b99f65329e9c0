import EntityModel
import Foundation
import LibPQ
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// A Recipes tenant with an application role, as a least-privilege deployment has it: the role
/// can use the tenant's schema and its tables, nothing else. Roles are cluster-wide, so the
/// role's name carries the database's; it is dropped afterwards.
struct AppTenant {
    let conninfo: String
    let admin: Connection
    let tenant: String
    let schema: String
    let appRole: String
    /// A connection as the app role, its `search_path` the tenant's schema (as an app has it).
    let app: Connection

    static let password = "app-Pa55"

    /// Runs `body` with tenant `name` created at `version` (v1, v2, or v3 through an offline
    /// v2 → v3) and filled with `recipes` recipes.
    static func with<T>(_ conninfo: String, tenant name: String = "acme", at version: String, recipes: Int = 40,
                        _ body: (AppTenant) async throws -> T) async throws -> T {
        let admin = try Connection(conninfo)
        let suffix = try admin.scalar("SELECT substr(current_database(), 9)", as: String.self)
        let role = "tm_online_app_" + suffix
        try admin.execute("CREATE ROLE \(id: role) LOGIN NOSUPERUSER PASSWORD \(literal: password)")
        defer {
            _ = try? admin.execute("DROP OWNED BY \(id: role) CASCADE")
            _ = try? admin.execute("DROP ROLE IF EXISTS \(id: role)")
        }
        let catalog = TenantCatalog()
        try catalog.install(on: admin)
        let lifecycle = TenantLifecycle(catalog: catalog, family: try recipesFamily())
        let start = version == "v1" ? "v1" : "v2"
        try lifecycle.create(try TenantName(name), version: start, access: TenantAccess(appRole: role), on: admin)
        try admin.loadRecipes(tenants: [name], version: start, recipes: recipes)
        if version == "v3" { _ = try await makeRecipesMigrator(conninfo).migrate(tenant: name, .migrate(to: "v3")) }
        let schema = "tenant_" + name
        let app = try Connection(connectionString(conninfo, user: role, password: password))
        try app.setSearchPath([schema])
        return try await body(AppTenant(conninfo: conninfo, admin: admin, tenant: name, schema: schema, appRole: role, app: app))
    }

    /// The tenant's recorded version and state.
    func recorded() throws -> (version: String, state: String)? { try admin.tenantVersions()[tenant] }

    /// Every row of the tenant at `version` (see ``tenantContents(schema:version:on:)``).
    func contents(at version: String) throws -> [String: [String]] {
        try tenantContents(schema: schema, version: try recipesFamily().version(named: version)!, on: admin)
    }

    /// What the app sees of the database: the tables of its schema and every schema it may use
    /// beyond its own and PostgreSQL's.
    func appView() throws -> (tables: [String], schemas: [String]) {
        let tables = try app.column(
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1", [schema], as: String.self
        )
        let schemas = try app.column("""
            SELECT nspname::text FROM pg_namespace WHERE has_schema_privilege(oid, 'USAGE')
            AND nspname NOT LIKE 'pg\\_%' AND nspname NOT IN ('information_schema', 'public') ORDER BY 1
            """, as: String.self)
        return (tables, schemas)
    }

    /// The tenant's state after a run stopped before its cutover: still at `version` with every row
    /// as before (`rows`), usable by the app, which sees nothing of the run; and the capture the
    /// run left logs nothing of the app's writes.
    func expectUsable(at version: String, rows: [String: [String]], sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        #expect(try recorded()?.version == version, sourceLocation: sourceLocation)
        #expect(try recorded()?.state == "ready", sourceLocation: sourceLocation)
        #expect(try contents(at: version) == rows, "the tenant's rows changed", sourceLocation: sourceLocation)
        let view = try appView()
        let expected = try recipesFamily().version(named: version)!.relationalSchema().tables.map(\.name).sorted()
        #expect(view.tables == expected, "the app sees \(view.tables)", sourceLocation: sourceLocation)
        #expect(view.schemas == [schema], "the app may use \(view.schemas)", sourceLocation: sourceLocation)
        let logged = try loggedChanges()
        try app.execute("UPDATE recipe SET name = name || '!' WHERE id = (SELECT min(id) FROM recipe)")
        try app.execute("UPDATE recipe SET name = rtrim(name, '!') WHERE id = (SELECT min(id) FROM recipe)")
        #expect(try loggedChanges() == logged, "a stopped run's capture still logs the app's writes", sourceLocation: sourceLocation)
    }

    /// Entries in the change log of a run of this tenant, if one is left; nil when there is none.
    func loggedChanges() throws -> Int? {
        let oid = try admin.scalar("SELECT oid::int8 FROM pg_namespace WHERE nspname = $1", [schema], as: Int64.self)
        let log = "\"_tm_online_\(oid)\".\"_tm_change_log\""
        guard try admin.scalar("SELECT to_regclass($1) IS NOT NULL", [log], as: Bool.self) else { return nil }
        return try admin.scalar("SELECT count(*)::int FROM \(log)", as: Int.self)
    }

    /// Nothing of an online run is left but the retired tables: no capture trigger, no private schema.
    func expectNoLeftovers(sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let triggers = try admin.column("""
            SELECT tgname::text FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = $1 AND NOT t.tgisinternal
            """, [schema], as: String.self)
        #expect(triggers.isEmpty, "triggers left: \(triggers)", sourceLocation: sourceLocation)
        let schemas = try admin.userSchemas().filter { $0.hasPrefix("_tm_online_") || $0.hasPrefix("_tm_delta_") }
        #expect(schemas.isEmpty, "schemas left: \(schemas)", sourceLocation: sourceLocation)
    }
}

/// How Recipes v2 → v3 maps: the family's Swift policies, or `Mappings/Declarative` (distinct
/// mappings, which online catch-up follows by key).
enum RecipesWay: String, CaseIterable, Sendable {
    case policies, declarative
}

/// The Recipes migrator for `way`.
func recipesMigrator(_ conninfo: String, _ way: RecipesWay) throws -> TenantMigrator {
    guard way == .declarative else { return try makeRecipesMigrator(conninfo) }
    return try TenantMigrator(connectionString: conninfo, familyDirectory: recipesDirectory,
                              mappingsDirectory: recipesDirectory.appendingPathComponent("Mappings/Declarative"), policies: RecipesPolicies.registry,
                              logger: .quiet("RecipesMigrator"))
}

/// Expects two tenants' contents (``tenantContents(schema:version:naturalKeys:on:)``) equal table by
/// table, naming the table, the row counts and the first row that differs.
func expectSameContents(_ online: [String: [String]], _ offline: [String: [String]], _ label: String = "",
                        sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    for table in Set(offline.keys).union(online.keys).sorted() {
        let (a, b) = (online[table] ?? [], offline[table] ?? [])
        let difference = zip(a, b).first { $0 != $1 }.map { "online \($0), offline \($1)" } ?? "in the number of rows"
        #expect(a == b, "\(label)\(table): \(a.count) rows online, \(b.count) offline; first difference \(difference)", sourceLocation: sourceLocation)
    }
}
