import MigrationEngine

/// v2 → v3: a recipe of type Meat or Fish becomes an Entrée (seed 003's first change), as a
/// Swift policy. The mapping's filter selects the rows; the policy rewrites each one in place.
public struct RecipeTypeToEntree: MigrationPolicy {
    public init() {}

    /// It rewrites `type` in place.
    public var transforms: [String] { ["type"] }

    public func createDestinationInstances(for source: SourceRow, in context: PolicyContext) throws {
        try context.update("Recipe", id: source.id, ["type": "Entrée"])
        context.associate(source: source.id, destination: source.id)
    }
}
