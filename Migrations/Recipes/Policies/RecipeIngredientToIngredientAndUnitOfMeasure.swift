import MigrationEngine

/// v2 → v3: extracts each RecipeIngredient's name and unit of measure into Ingredient and
/// UnitOfMeasure entities, each created once per distinct value (seed 003's
/// `RecipeIngredientToIngredientAndUnitOfMeasure`, with the migration manager's userInfo lookups
/// as the context's lookup tables).
///
/// An Ingredient is keyed by its name and takes the unit of the first RecipeIngredient (in id
/// order) that names it, as in the seed. v3 has no place for a RecipeIngredient's own unit, so
/// when the same name comes with another unit, that unit is lost: the policy declares it
/// (``loses``) and archives it, so v3 → v2 gives each RecipeIngredient its own unit back; without
/// the archive (`--no-archive`) the loss needs consent. It warns once per step with the number of
/// such rows.
public struct RecipeIngredientToIngredientAndUnitOfMeasure: MigrationPolicy {
    public init() {}

    /// Each name becomes an Ingredient's name, each unit a UnitOfMeasure's name.
    public var transforms: [String] { ["name", "unitOfMeasure"] }

    /// Row-local: it reads its own row and makes each Ingredient at its name's first row, each
    /// UnitOfMeasure at its unit's first row (online, catch-up follows them by key).
    public var locality: PolicyLocality { .rowLocal(sharedRows: ["Ingredient": "name", "UnitOfMeasure": "unitOfMeasure"]) }

    public var loses: [PolicyLoss] {
        [PolicyLoss(
            attribute: "unitOfMeasure",
            // Hash joins on the first id of each name: neither a subquery per row nor a sort of
            // the whole table (a window over it sorts every row, on disk when the table is large).
            rows: "source.id IN (SELECT tm_r.id FROM {source:RecipeIngredient} AS tm_r JOIN (SELECT tm_f.name, tm_f.unit_of_measure "
                + "FROM {source:RecipeIngredient} AS tm_f WHERE tm_f.id IN (SELECT pg_catalog.min(tm_m.id) FROM {source:RecipeIngredient} AS tm_m "
                + "GROUP BY tm_m.name)) AS tm_first ON tm_first.name = tm_r.name WHERE tm_r.unit_of_measure IS DISTINCT FROM tm_first.unit_of_measure)",
            reason: "a RecipeIngredient's own unit of measure, where it differs from the unit of the first RecipeIngredient of the same name: v3 keeps one unit per Ingredient"
        )]
    }

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
            try context.archive(entity: "RecipeIngredient", id: source.id, attribute: "unitOfMeasure", value: try source.string("unitOfMeasure"))
            context.warn("the RecipeIngredient's own unit of measure differs from its ingredient's and is not kept (declared in `loses`)", sourceRow: source.id)
        }
        try context.update("RecipeIngredient", id: source.id, ["ingredient": ingredientID])
        context.associate(source: source.id, destination: ingredientID)
    }
}

struct PolicyUsage: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
