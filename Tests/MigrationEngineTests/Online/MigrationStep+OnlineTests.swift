import EntityModel
import Foundation
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import Testing

/// Each step's online mode, decided before anything runs, with its reason.
@Suite("Online mode of a step")
struct MigrationStepOnlineTests {
    func planner(_ directory: URL, policies: PolicyRegistry = PolicyRegistry()) throws -> MigrationPlanner {
        let family = try ModelFamily.load(from: directory)
        let mappings = try MappingModel.loadAll(for: family, policies: policies)
        return MigrationPlanner(family: family, mappings: mappings)
    }

    func modes(_ planner: MigrationPlanner, _ from: String, _ to: String) throws -> [OnlineStepMode] {
        try planner.plan(from: from, to: to).steps.map(\.onlineMode)
    }

    func fixture(_ name: String) -> URL { PackagePaths.root.appendingPathComponent("Tests/MigrationEngineTests/Fixtures/\(name)") }

    /// The Recipes policies are row-local (the Ingredient and UnitOfMeasure extraction makes its
    /// rows once per key, `sharedRows`): every step runs in a shadow, the policy's rows made per
    /// key followed by key as a distinct mapping's.
    @Test func recipesStepsRunInAShadowWithTheirRowLocalPolicies() throws {
        let recipes = try planner(PackagePaths.migrationFamily("Recipes"), policies: RecipesPolicies.registry)
        let up = try modes(recipes, "v1", "v3")
        #expect(up.map(\.kind) == [.shadow, .shadow])
        #expect(up[0].reason.contains("recipe.servings"))
        #expect(up[1].reason.contains("row-local Swift policies RecipeTypeToEntree, RecipeIngredientToIngredientAndUnitOfMeasure"), "\(up[1])")
        let down = try modes(recipes, "v3", "v1")
        #expect(down.map(\.kind) == [.shadow, .shadow])
        let online = OnlinePlan(try recipes.plan(from: "v1", to: "v3"))
        #expect(online.kind == .shadow)
        #expect(online.caughtUp.map(\.destination.name) == ["v2", "v3"])
        #expect(online.whileWritesWait.isEmpty)
        #expect(online.lineage.origins["recipe_ingredient"]?.sourceTable == "recipe_ingredient")
        // The policy's rows made per key, followed by key in the last step caught up.
        #expect(online.distinct.map(\.destinationTable) == ["ingredient", "unit_of_measure"])
        #expect(online.distinct.map(\.sourceTable) == ["recipe_ingredient", "recipe_ingredient"])
        // v3 → v2 reads an ingredient's name through the key: changes to either side are followed.
        let back = OnlinePlan(try recipes.plan(from: "v3", to: "v2"))
        #expect(Set(back.lineage.readers.map(\.table)) == ["recipe_ingredient", "ingredient"])
    }

    @Test(arguments: [
        ("Renames", "v1", "v2", OnlineStepMode.Kind.catalogOnly), ("Entities", "v1", "v2", .catalogOnly),
        ("Entities", "v2", "v1", .shadow), ("Optionality", "v1", "v2", .shadow), ("Properties", "v1", "v2", .shadow),
        ("SubEntityRename", "v1", "v2", .shadow), ("ToMany", "v1", "v2", .writesWait), ("FlipKey", "v1", "v2", .writesWait),
        ("Posts", "v1", "v2", .writesWait), ("Attachments", "v1", "v3", .writesWait),
    ])
    func everyKindOfStepHasItsMode(family: String, from: String, to: String, kind: OnlineStepMode.Kind) throws {
        let modes = try modes(try planner(fixture(family)), from, to)
        #expect(modes.map(\.kind).max() == kind, "\(family) \(from) → \(to): \(modes)")
    }

    /// A policy that declares it reads other rows keeps its step writes-wait, and the reason names it.
    @Test func aPolicyThatReadsOtherRowsMakesWritesWait() throws {
        var registry = RecipesPolicies.registry
        registry.register("RecipeTypeToEntree") { ReadsOtherRecipes() }
        let recipes = try planner(PackagePaths.migrationFamily("Recipes"), policies: registry)
        let mode = try modes(recipes, "v2", "v3")[0]
        #expect(mode.kind == .writesWait)
        #expect(mode.reason == "mapping MeatAndFishToEntree runs the Swift policy RecipeTypeToEntree, which declares that it reads other rows: "
            + "it numbers the entrées of each author")
    }

    /// Tracks' policy makes its artists once per name of a JSON list (several keys per row): it
    /// declares so, and its step waits for writes with that reason.
    @Test func theTracksPolicyDeclaresItsArtistsAndWaitsForWrites() throws {
        var registry = PolicyRegistry()
        registry.register("TrackArtistsFromJSON") { TrackArtistsFromJSON() }
        let mode = try modes(try planner(fixture("Tracks"), policies: registry), "v1", "v2")[0]
        #expect(mode.kind == .writesWait)
        #expect(mode.reason.contains("which declares that it reads other rows: its Artist rows are made once per name in a JSON list"), "\(mode)")
    }

    @Test func aMappingThatReadsOtherRowsMakesWritesWait() throws {
        let family = try ModelFamily.load(from: fixture("Notes"))
        let mapping = try MappingModel.load(yaml: """
            source: v1
            destination: v2
            entityMappings:
              - name: NoteToNote
                source: Note
                destination: Note
                attributes:
                  title: "(SELECT max(n.title) FROM {source:Note} AS n)"
            """, file: "subquery.yaml", family: family, policies: PolicyRegistry())
        let mode = try MigrationPlanner(family: family, mappings: [mapping]).plan(from: "v1", to: "v2").steps[0].onlineMode
        #expect(mode.kind == .writesWait)
        #expect(mode.reason.contains("mapping NoteToNote's attribute title reads other rows"))
    }
}

/// A policy that says it reads other rows.
private struct ReadsOtherRecipes: MigrationPolicy {
    var locality: PolicyLocality { .readsOtherRows("it numbers the entrées of each author") }
}
