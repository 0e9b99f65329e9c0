import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// A step hook (`willMigrate`, `didMigrate`) is trusted code and runs SQL on the tenant's
/// migration connection, as the migrator; the names in that SQL are resolved when it runs, where
/// an untrusted role may own what they resolve to. Each statement a hook sends is judged as a
/// policy's is (docs/Security.md, "SQL of the step hooks"); `ANALYZE` and `VACUUM` only when every
/// relation they name is a trusted table of the tenant's.
///
/// The setup is ``PlantedPolicySQLTests``': tenant `t` at Recipes v2, the administrator's helpers
/// in `public`, where the attacker may create objects; the attacker's code writes who ran it into
/// `public.pwned`.
@Suite("Planted objects in the step hooks' SQL")
struct PlantedHookSQLTests {
    /// An attack: the hook, its SQL (`{schema}` for the tenant's schema, quoted; statements
    /// separated by ` ;; `), the attacker's statements, what a refusal must name.
    struct Attack: Sendable, CustomStringConvertible {
        let description: String
        var hook = "didMigrate"
        let sql: String
        let plants: [String]
        let named: [String]
    }

    static let attacks: [Attack] = [
        // The administrator's code_for(bigint) is what the hook means; the integer 1 matches the attacker's better.
        Attack(description: "a better overload called by name", sql: "SELECT public.code_for(pg_catalog.count(*)::int) FROM {schema}.recipe",
               plants: [PlantedExpressionTests.plant("code_for", "integer", returns: "text", result: "'planted'")],
               named: ["function public.code_for(integer)", "{attacker}"]),
        Attack(description: "a better overload, before the data moves", hook: "willMigrate", sql: "SELECT public.code_for(1)",
               plants: [PlantedExpressionTests.plant("code_for", "integer", returns: "text", result: "'planted'")],
               named: ["function public.code_for(integer)", "{attacker}"]),
        // A view runs its functions as whoever reads it.
        Attack(description: "a view the hook reads", sql: "SELECT pg_catalog.max(label) FROM public.recipe_labels", plants: [
            PlantedExpressionTests.plant("label_for", "text", returns: "text", result: "'planted'"),
            "CREATE VIEW public.recipe_labels AS SELECT public.label_for('x') AS label",
            "GRANT SELECT ON public.recipe_labels TO PUBLIC",
        ], named: ["view public.recipe_labels", "{attacker}"]),
        // A block PostgreSQL resolves only as it runs it.
        Attack(description: "a DO block", sql: "DO $$BEGIN PERFORM public.code_for(1); END$$",
               plants: [PlantedExpressionTests.plant("code_for", "integer", returns: "text", result: "'planted'")], named: ["DO $$BEGIN"]),
        // ANALYZE of a table the attacker owns (with an index over its own function).
        Attack(description: "ANALYZE of the attacker's table", sql: "ANALYZE public.bait", plants: [
            PlantedExpressionTests.plant("code_for", "integer", returns: "text", result: "'planted'"),
            "CREATE TABLE public.bait (n integer)", "INSERT INTO public.bait SELECT generate_series(1, 10)",
            "CREATE INDEX bait_code ON public.bait (public.code_for(n))",
        ], named: ["public.bait", "{attacker}"]),
        // ANALYZE of every table the migrator may analyze, whatever their schema.
        Attack(description: "ANALYZE of no relation", sql: "ANALYZE", plants: [], named: ["ANALYZE"]),
    ]

    /// `attack`'s hook's statement would use what the attacker planted: the step is refused before
    /// the statement runs, naming the hook, the step, the statement or object (42501); nothing
    /// planted ran as the migrator; the tenant is still at v2.
    @Test(arguments: attacks)
    func aPlantedObjectInAHooksSQLNeverRunsAsTheMigrator(_ attack: Attack) async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await PlantedPolicySQLTests.tenant(setup)
            try setup.plant(attack.plants)

            let message = await Self.migrationError(setup, attack)
            try Self.expectRefused(message, attack, admin, setup)
        }
    }

    /// Online too (a step with hooks runs writes-wait).
    @Test func aPlantedOverloadInAHooksSQLNeverRunsAsTheMigratorOnline() async throws {
        let attack = Self.attacks[0]
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await PlantedPolicySQLTests.tenant(setup)
            try setup.plant(attack.plants)

            let message = await Self.migrationError(setup, attack, online: true)
            try Self.expectRefused(message, attack, admin, setup)
        }
    }

    /// What hooks are for, with the attacker's overload planted beside: `LOCK`, `ANALYZE` of the
    /// tenant's tables (with options and columns), queries over them and the administrator's
    /// functions in a schema only trusted roles create in. The tenant migrates; nothing planted ran.
    @Test func hooksThatUseTrustedObjectsRun() async throws {
        try await LeastPrivilegeDatabase.with { setup in
            let admin = try await PlantedPolicySQLTests.tenant(setup)
            try setup.administratorHelpersInExt(PlantedExpressionTests.administratorSetup[2...2], on: admin)
            try setup.plant([PlantedExpressionTests.plant("code_for", "integer", returns: "text", result: "'planted'")])

            let seen = Locked<[String]>([])
            var policies = RecipesPolicies.registry
            policies.registerHooks(family: "Recipes", from: "v2", to: "v3", StepHooks(
                willMigrate: { connection, schema in
                    try connection.execute("LOCK TABLE \(table: "recipe")", schema: schema)
                    try connection.execute(unsafeSQL: "ANALYZE \(connection.quoteIdentifier(schema)).recipe")
                },
                didMigrate: { connection, schema in
                    let quoted = connection.quoteIdentifier(schema)
                    try connection.execute(unsafeSQL: "ANALYZE (VERBOSE false, SKIP_LOCKED) \(quoted).recipe (name), \(quoted).\"recipe\"")
                    try connection.execute("ANALYZE \(table: "recipe")", schema: schema)
                    let codes = try connection.execute(unsafeSQL: "SELECT ext.code_for(pg_catalog.count(*)::int) FROM \(quoted).recipe").first!.decode(String.self, at: 0)
                    seen.withLock { $0.append(codes) }
                }
            ))
            let result = try await makeRecipesMigrator(setup.migrator.url, policies: policies).migrate(tenant: "t", .migrate(to: "v3"))
            #expect(result.outcome == .migrated)
            #expect(seen.value == ["C20"])
            #expect(try admin.column("SELECT who FROM public.pwned", as: String.self).isEmpty)
            #expect(try admin.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 't'", as: String.self) == "v3")
        }
    }

    /// What migrating `t` to v3 as the migrator, with `attack`'s hook, failed with.
    static func migrationError(_ setup: LeastPrivilegeDatabase, _ attack: Attack, online: Bool = false) async -> String {
        var policies = RecipesPolicies.registry
        let run: @Sendable (PolicyConnection, String) throws -> Void = { connection, schema in
            for statement in attack.sql.components(separatedBy: " ;; ") {
                try connection.execute(unsafeSQL: statement.replacingOccurrences(of: "{schema}", with: connection.quoteIdentifier(schema)))
            }
        }
        policies.registerHooks(family: "Recipes", from: "v2", to: "v3",
                               attack.hook == "willMigrate" ? StepHooks(willMigrate: run) : StepHooks(didMigrate: run))
        return await setup.migrationMessage(policies: policies, online: online)
    }

    /// `message` refuses the hook's statement, naming the hook, the step, what `attack` names and
    /// 42501; nothing planted ran; the tenant is at v2.
    static func expectRefused(_ message: String, _ attack: Attack, _ admin: Connection, _ setup: LeastPrivilegeDatabase) throws {
        // (The attacker's own index ran its code as the attacker.)
        let ran: [String] = try admin.column("SELECT who || ' ran ' || what FROM public.pwned WHERE who = $1", [setup.migrator.role])
        #expect(ran.isEmpty, "planted code ran: \(message)")
        for part in ["\(attack.hook) hook of step v2 → v3", "42501"] + attack.named.map({ $0 == "{attacker}" ? setup.attacker.role : $0 }) {
            #expect(message.contains(part), "the refusal does not name \(part): \(message)")
        }
        #expect(message.components(separatedBy: "hook of step v2 → v3").count == 2, "the refusal names the hook once: \(message)")
        #expect(try admin.scalar("SELECT version FROM tenant_migrator.tenants WHERE name = 't'", as: String.self) == "v2")
    }
}
