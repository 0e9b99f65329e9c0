import MigrationEngine

/// v2 → v3: extracts each RecipeIngredient's name and unit of measure into Ingredient and
/// UnitOfMeasure entities, each created once per distinct value (seed 003's
/// `RecipeIngredientToIngredientAndUnitOfMeasure`, with the migration manager's userInfo lookups
/// as the context's lookup tables).
///
/// An Ingredient is keyed by its name and takes the unit of the first RecipeIngredient that names
/// it, as in the seed. When the same name comes with another unit, that unit is not kept on the
/// Ingredient: the policy counts and logs such rows, since rolling back could not restore them.
public struct RecipeIngredientToIngredientAndUnitOfMeasure: MigrationPolicy {
    public init() {}

    public func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {
        guard let name = try source.string("name") else {
            throw PolicyUsage("RecipeIngredient \(source.id) has no name")
        }
        // One UnitOfMeasure per distinct unit, one Ingredient per distinct name.
        let unitID = try source.string("unitOfMeasure").map { unit in
            try context.lookupOrCreate("UnitOfMeasure", unit) { try context.insert("UnitOfMeasure", ["name": unit]) }
        }
        let ingredientID = try context.lookupOrCreate("Ingredient", name) {
            context.remember("UnitOfIngredient", name, id: unitID ?? 0)
            return try context.insert("Ingredient", ["name": name, "unitOfMeasure": unitID])
        }
        if context.lookup("UnitOfIngredient", name) != (unitID ?? 0) {
            context.logger.warning("RecipeIngredient \(source.id): ingredient \(name) already has another unit of measure; this row's unit is not kept")
        }
        try context.update("RecipeIngredient", id: source.id, ["ingredient": ingredientID])
        context.associate(source: source.id, destination: ingredientID)
    }
}

struct PolicyUsage: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
