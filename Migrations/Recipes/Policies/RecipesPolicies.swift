import MigrationEngine

/// The Swift migration policies of the Recipes family.
public enum RecipesPolicies {
    /// Registers every Recipes policy under the name its mapping models use.
    public static func register(in registry: inout PolicyRegistry) {
        registry.register("RecipeTypeToEntree") { RecipeTypeToEntree() }
        registry.register("RecipeIngredientToIngredientAndUnitOfMeasure") { RecipeIngredientToIngredientAndUnitOfMeasure() }
    }

    /// A registry with every Recipes policy.
    public static var registry: PolicyRegistry {
        var registry = PolicyRegistry()
        register(in: &registry)
        return registry
    }
}
