import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// A Swift policy is trusted code and runs SQL as the migrator, but the names in that SQL are
/// resolved when it runs, where an untrusted role may own what they resolve to: a better-matching
/// overload or an operator in a schema it may create in, a view the policy reads. Each distinct
/// statement a policy sends, through ``PolicyContext/execute(_:_:)`` or the raw connection, is
/// judged as the mappings' expressions are, before it runs (docs/Security.md, "SQL of the
/// policies").
///
/// The setup is ``PlantedExpressionTests``': the administrator's helpers in `public`, where the
/// attacker may create objects; the attacker's code writes who ran it into `public.pwned`.
@Suite("Planted objects in the policies' SQL")
struct PlantedPolicySQLTests {
    /// How the policy sends its SQL.
    enum Route: String, Sendable {
        /// ``PolicyContext/execute(_:_:)``, once in `begin`.
        case context
        /// `context.connection.execute(unsafeSQL:_:)`, once per source row, with the row's name as a parameter.
        case rawConnection
    }

    /// RecipeTypeToEntree (in place of it), which also runs `sql` (`{recipe}` for the source
    /// table; statements separated by ` ;; ` one after the other) the `route` way. It reads other
    /// rows, so that it may run SQL online too.
    struct SQLRunningPolicy: MigrationPolicy {
        let sql: String
        let route: Route
        var transforms: [String] { ["type"] }
        var locality: PolicyLocality { .readsOtherRows("it runs SQL of its own") }

        func statements(_ context: PolicyContext) throws -> [String] {
            sql.replacingOccurrences(of: "{recipe}", with: try context.sourceTable(of: "Recipe")).components(separatedBy: " ;; ")
        }

        func begin(_ context: PolicyContext) throws {
            if route == .context { for statement in try statements(context) { try context.execute(statement) } }
        }

        func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {
            if route == .rawConnection {
                for statement in try statements(context) { try context.connection.execute(unsafeSQL: statement, [try source.string("name")]) }
            }
            try RecipeTypeToEntree().createDestinationInstances(for: source, in: context)
        }
    }

    /// An attack: the policy's SQL, the attacker's statements, what a refusal must name.
    struct Attack: Sendable, CustomStringConvertible {
        let description: String
        let sql: String
        let route: Route
        let plants: [String]
        let named: String
    }

    static let attacks: [Attack] = [
        // The administrator's code_for(bigint) is what the policy means; integer matches better.
        Attack(description: "a better overload, through the context", sql: "SELECT public.code_for(r.servings) FROM {recipe} AS r",
               route: .context, plants: [PlantedExpressionTests.plant("code_for", "integer", returns: "text", result: "'planted'")],
               named: "function public.code_for(integer)"),
        // The administrator's ===(text, text); a varchar on the left matches the attacker's better.
        Attack(description: "an operator, through the raw connection", sql: "SELECT count(*) FROM {recipe} AS r WHERE r.name::varchar OPERATOR(public.===) $1",
               route: .rawConnection, plants: [
                   PlantedExpressionTests.plant("same_name", "varchar, text", returns: "boolean", result: "$1 = $2"),
                   "CREATE OPERATOR public.=== (LEFTARG = varchar, RIGHTARG = text, FUNCTION = public.same_name)",
               ], named: "public.===(character varying,text)"),
        // A cursor's query, judged when it is declared (it runs at the first FETCH).
        Attack(description: "a cursor's query", sql: "DECLARE planted NO SCROLL CURSOR FOR SELECT public.code_for(r.servings) FROM {recipe} AS r",
               route: .context, plants: [PlantedExpressionTests.plant("code_for", "integer", returns: "text", result: "'planted'")],
               named: "function public.code_for(integer)"),
        // Unqualified names, after the policy put public on its search path.
        Attack(description: "an unqualified name on a search path the policy set",
               sql: "SELECT pg_catalog.set_config('search_path', 'public, pg_catalog', true) ;; SELECT code_for(r.servings) FROM {recipe} AS r",
               route: .context, plants: [PlantedExpressionTests.plant("code_for", "integer", returns: "text", result: "'planted'")],
               named: "schema public"),
        // A view runs its functions as whoever reads it.
        Attack(description: "a view the policy reads", sql: "SELECT pg_catalog.max(label) FROM public.recipe_labels", route: .context, plants: [
            PlantedExpressionTests.plant("label_for", "text", returns: "text", result: "'planted'"),
            "CREATE VIEW public.recipe_labels AS SELECT public.label_for('x') AS label",
            "GRANT SELECT ON public.recipe_labels TO PUBLIC",
        ], named: "view public.recipe_labels"),
    ]

    /// The policy's statement would call what the attacker planted: the step is refused before the
    /// statement runs, naming the mapping, the policy, the object and its owner (42501); nothing
    /// planted ran as the migrator; the tenant is still at v2.
    @Test(arguments: attacks)
    func aPlantedObjectInAPolicysSQLNeverRunsAsTheMigrator(_ attack: Attack) async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await Self.tenant(setup)
            try setup.plant(attack.plants)

            let message = await Self.migrationError(setup, attack.sql, attack.route)
            try Self.expectRefused(message, admin, setup, naming: [attack.named])
        }
    }

    /// Online too (a policy that reads other rows runs its step writes-wait on the shadow).
    @Test func aPlantedOverloadInAPolicysSQLNeverRunsAsTheMigratorOnline() async throws {
        let attack = Self.attacks[0]
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await Self.tenant(setup)
            try setup.plant(attack.plants)

            let message = await Self.migrationError(setup, attack.sql, attack.route, online: true)
            try Self.expectRefused(message, admin, setup, naming: [attack.named])
        }
    }

    /// The same statements, with the functions and the operator in a schema only the administrator
    /// creates in: the policy's SQL runs, and the tenant migrates.
    @Test func functionsInASchemaOnlyTrustedRolesCreateInAreUsedByPolicies() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await Self.tenant(setup)
            try setup.administratorHelpersInExt(PlantedExpressionTests.administratorSetup.dropFirst(2), on: admin)
            try setup.plant([PlantedExpressionTests.plant("code_for", "integer", returns: "text", result: "'planted'")])

            for (sql, route) in [("SELECT ext.code_for(r.servings) FROM {recipe} AS r", Route.context),
                                 ("SELECT count(*) FROM {recipe} AS r WHERE r.name OPERATOR(ext.===) $1", .rawConnection)] {
                var policies = RecipesPolicies.registry
                policies.register("RecipeTypeToEntree") { SQLRunningPolicy(sql: sql, route: route) }
                let result = try await makeRecipesMigrator(setup.migrator.url, policies: policies).migrate(tenant: "t", .migrate(to: "v3"))
                #expect(result.outcome == .migrated)
                _ = try await makeRecipesMigrator(setup.migrator.url).migrate(tenant: "t", .rollback(to: "v2"))
            }
            #expect(try admin.column("SELECT who FROM public.pwned", as: String.self).isEmpty)
        }
    }

    /// RecipeIngredientToIngredientAndUnitOfMeasure (in place of it), which also declares that it
    /// loses the unit of the rows `rows` selects: the runtime puts that predicate into its own
    /// statements (without the archive, the count of the rows the step loses).
    struct LosingPolicy: MigrationPolicy {
        let rows: String
        let real = RecipeIngredientToIngredientAndUnitOfMeasure()
        var transforms: [String] { real.transforms }
        var locality: PolicyLocality { real.locality }
        var loses: [PolicyLoss] { real.loses + [PolicyLoss(attribute: "unitOfMeasure", rows: rows, reason: "a test's")] }

        func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {
            try real.createDestinationInstances(for: source, in: context)
        }
    }

    /// A policy's `loses:` predicate that would call a planted better overload: the step is
    /// refused before it runs, naming the mapping and the planted function; nothing planted ran.
    @Test func aPlantedOverloadInAPolicysLossPredicateNeverRunsAsTheMigrator() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await Self.tenant(setup)
            try setup.plant([PlantedExpressionTests.plant("code_for", "integer", returns: "text", result: "'planted'")])

            var policies = RecipesPolicies.registry
            policies.register("RecipeIngredientToIngredientAndUnitOfMeasure") { LosingPolicy(rows: "public.code_for(pg_catalog.length(source.name)) IS NOT NULL") }
            var message = "no error"
            do {
                // Without the archive, the step counts the rows it loses (DataDependentLossCheck).
                var migrator = try makeRecipesMigrator(setup.migrator.url, policies: policies)
                migrator.settings.archives = false
                let result = try await migrator.migrate(tenant: "t", .migrate(to: "v3", allowDestructive: true))
                message += ": \(result.outcome)"
            } catch {
                message = "\(error)"
            }
            #expect(try admin.column("SELECT who || ' ran ' || what FROM public.pwned", as: String.self).isEmpty, "planted code ran: \(message)")
            for part in ["mapping RecipeIngredientToIngredientAndUnitOfMeasure", "function public.code_for(integer)", setup.attacker.role, "42501"] {
                #expect(message.contains(part), "the refusal does not name \(part): \(message)")
            }
            #expect(try admin.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 't'", as: String.self) == "v2")
        }
    }

    /// The administrator's helpers and evidence table; tenant `t` at Recipes v2 with 20 recipes,
    /// made by the migrator; the administrator's connection.
    static func tenant(_ setup: LeastPrivilegeDatabase) async throws -> Connection {
        let admin = try await setup.recipesTenant(recipes: 20)
        for statement in PlantedExpressionTests.administratorSetup { try admin.execute(unsafeSQL: statement) }
        return admin
    }

    /// What migrating `t` to v3 as the migrator, with ``SQLRunningPolicy`` for RecipeTypeToEntree, failed with.
    static func migrationError(_ setup: LeastPrivilegeDatabase, _ sql: String, _ route: Route, online: Bool = false) async -> String {
        var policies = RecipesPolicies.registry
        policies.register("RecipeTypeToEntree") { SQLRunningPolicy(sql: sql, route: route) }
        return await setup.migrationMessage(policies: policies, online: online)
    }

    /// `message` refuses the policy's statement, naming the mapping, the policy, `named` and the
    /// attacker; nothing planted ran; the tenant is at v2.
    static func expectRefused(_ message: String, _ admin: Connection, _ setup: LeastPrivilegeDatabase, naming named: [String]) throws {
        #expect(try admin.column("SELECT who || ' ran ' || what FROM public.pwned", as: String.self).isEmpty, "planted code ran: \(message)")
        for part in ["MeatAndFishToEntree", "RecipeTypeToEntree", setup.attacker.role, "42501"] + named {
            #expect(message.contains(part), "the refusal does not name \(part): \(message)")
        }
        #expect(message.components(separatedBy: "RecipeTypeToEntree").count == 2, "the refusal names the policy once: \(message)")
        #expect(message.contains("v2-to-v3.yaml"), "the refusal names the mapping file: \(message)")
        #expect(try admin.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 't'", as: String.self) == "v2")
    }
}
