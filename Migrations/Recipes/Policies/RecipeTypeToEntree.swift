import MigrationEngine

/// v2 → v3: a recipe of type Meat or Fish becomes an Entrée (seed 003's first change), as a
/// Swift policy. The mapping's filter selects the rows; the policy rewrites each one in place,
/// archiving the old type first, so v3 → v2 gives each Entrée back its Meat or Fish (where the
/// app has not changed the type since).
public struct RecipeTypeToEntree: MigrationPolicy {
    public init() {}

    /// It rewrites `type` in place.
    public var transforms: [String] { ["type"] }

    public func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {
        try context.archive(entity: "Recipe", id: source.id, attribute: "type", value: try source.string("type"))
        try context.update("Recipe", id: source.id, ["type": "Entrée"])
        context.associate(source: source.id, destination: source.id)
    }
}
