import ArgumentParser
import EntityModel
import TypedSQL

/// The default size of a fleet benchmark's tenants.
protocol TenantContentsDefaults {
    /// Recipes per tenant, unless `--recipes` says otherwise.
    static var recipesPerTenant: Int { get }
}

/// What each tenant of a fleet benchmark holds at Recipes v1 (`fleet`, `citus`): recipes with
/// ingredients each, the same rows for tenant i of every set.
struct TenantContents<Defaults: TenantContentsDefaults>: ParsableArguments {
    @Option(help: "Recipes per tenant.")
    var recipes = Defaults.recipesPerTenant

    @Option(help: "Ingredients per recipe.")
    var ingredients = 3

    /// Fills the v1 tenant `schema`: ``recipes`` recipes (types cycling Meat, Fish, Vegetarian,
    /// Dessert, Other) with ``ingredients`` each, named from a pool of 60, each name always with the
    /// same unit (or none). Deterministic in `index`, so tenant i of every set holds the same rows.
    func loadStatements(schema: String, index: Int, quoting q: some SQLQuoting) -> [String] {
        let s = q.quoteIdentifier(schema)
        return ["""
            INSERT INTO \(s).recipe (name, type, servings, instructions)
            SELECT 'Recipe ' || g, (ARRAY['Meat', 'Fish', 'Vegetarian', 'Dessert', 'Other'])[1 + (g + \(index)) % 5],
                   CASE WHEN g % 9 = 0 THEN NULL ELSE (1 + (g * 3 + \(index)) % 8)::int2 END,
                   CASE WHEN g % 5 = 0 THEN NULL ELSE 'Cook recipe ' || g || ' with care.' END
            FROM generate_series(1, \(recipes)) AS g
            """, """
            INSERT INTO \(s).recipe_ingredient (recipe_id, name, quantity, unit_of_measure)
            SELECT r.id, 'Ingredient ' || n, CASE WHEN k % 4 = 3 THEN NULL ELSE (k * 10 + r.id % 7)::numeric / 4 END,
                   CASE WHEN n % 10 = 9 THEN NULL ELSE (ARRAY['g', 'ml', 'piece', 'tbsp', 'cup', 'pinch'])[1 + n % 6] END
            FROM \(s).recipe AS r, generate_series(1, \(ingredients)) AS k, LATERAL (SELECT (r.id * 7 + k * 13 + \(index)) % 60 AS n) AS pick
            ORDER BY r.id, k
            """]
    }
}
