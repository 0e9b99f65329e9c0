import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing

/// A Swift policy is row-local by default, and an online run checks it rather than trusts it: a
/// policy that reads or writes beyond its source row fails the run, naming the policy, the row and
/// the call, and the tenant stays at its old version with all its rows. Offline, the same policy
/// runs as before.
@Suite("Online runs of row-local policies")
struct OnlineRunPoliciesTests {
    /// How each policy goes beyond its row (in place of RecipeTypeToEntree, on Meat and Fish recipes).
    enum Breach: String, CaseIterable, Sendable {
        case sql, otherRow, otherKey

        var expected: String {
            switch self {
            case .sql: "uses the name of source table Recipe"
            case .otherRow: "updates Recipe of row"
            case .otherKey: "uses lookup Recipes under a key that is none of its source row's keys"
            }
        }
    }

    struct BreachingPolicy: MigrationPolicy {
        let breach: Breach
        var transforms: [String] { ["type"] }

        func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {
            switch breach {
            case .sql: _ = try context.execute("SELECT count(*) FROM \(try context.sourceTable(of: "Recipe"))")
            case .otherRow: try context.update("Recipe", id: source.id + 1, ["servings": 1])
            case .otherKey: context.remember("Recipes", "all", id: source.id)
            }
            try context.archive(entity: "Recipe", id: source.id, attribute: "type", value: try source.string("type"))
            try context.update("Recipe", id: source.id, ["type": "Entrée"])
        }
    }

    @Test(arguments: Breach.allCases)
    func aPolicyThatReadsBeyondItsRowFailsTheOnlineRun(breach: Breach) async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (connection, lifecycle) = try installedLifecycle(conninfo)
            for name in ["online", "offline"] {
                try lifecycle.create(try tenant(name), version: "v2", on: connection)
                try connection.loadRecipes(tenants: [name], version: "v2", recipes: 30)
            }
            var policies = RecipesPolicies.registry
            policies.register("RecipeTypeToEntree") { BreachingPolicy(breach: breach) }
            let migrator = try makeRecipesMigrator(conninfo, policies: policies)
            let types = "SELECT type FROM tenant_online.recipe ORDER BY id"
            let before = try connection.column(types, as: String.self)

            let error = await #expect(throws: (any Error).self) {
                _ = try await migrator.migrate(tenant: "online", .migrate(to: "v3", online: .on))
            }
            let message = "\(error.map { "\($0)" } ?? "")"
            #expect(message.contains("policy RecipeTypeToEntree of mapping MeatAndFishToEntree is row-local"), "\(message)")
            #expect(message.contains(breach.expected), "\(message)")
            #expect(message.contains("on source row id"), "\(message)")
            #expect(try connection.tenantVersions()["online"]?.version == "v2")
            #expect(try connection.column(types, as: String.self) == before)

            // Offline, nothing is checked.
            let offline = try await migrator.migrate(tenant: "offline", .migrate(to: "v3"))
            #expect(offline.outcome == .migrated)
        }
    }
}
