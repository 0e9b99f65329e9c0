import LibPQ
import PostgresTestSupport

extension Connection {
    /// Fills Recipes tenants (at v1, or at v2 with `version: "v2"`) with `recipes` recipes of
    /// `ingredients` ingredients each: two INSERT … SELECT statements per tenant, pipelined in one
    /// round trip, one statement per message (as Citus needs). Ingredient names come from a pool of
    /// 40 (so v3's de-duplication has work to do); each name always has the same unit; types cycle
    /// through Meat, Fish, Vegetarian, Dessert and Other.
    public func loadRecipes(tenants: [String], version: String = "v1", recipes: Int, ingredients: Int = 3) throws {
        let instructions = version == "v1" ? "instructions" : "method"
        for tenant in tenants {
            let schema = quoteIdentifier("tenant_" + tenant)
            try pipeline([
                Statement(unsafeSQL: """
                    INSERT INTO \(schema).recipe (name, type, servings, \(instructions))
                    SELECT 'Recipe ' || g, (ARRAY['Meat', 'Fish', 'Vegetarian', 'Dessert', 'Other'])[1 + g % 5], (1 + g % 8)::int2,
                           'Cook recipe ' || g || ' with care.'
                    FROM generate_series(1, \(recipes)) AS g
                    """),
                Statement(unsafeSQL: """
                    INSERT INTO \(schema).recipe_ingredient (recipe_id, name, quantity, unit_of_measure)
                    SELECT r.id, 'Ingredient ' || ((r.id * 7 + k) % 40), (k * 10 + r.id % 5)::numeric,
                           (ARRAY['g', 'ml', 'piece', 'tbsp'])[1 + ((r.id * 7 + k) % 40) % 4]
                    FROM \(schema).recipe AS r, generate_series(1, \(ingredients)) AS k
                    """),
            ])
        }
    }

    /// Every tenant's (version, state) in the default catalog, by name.
    public func tenantVersions() throws -> [String: (version: String, state: String)] {
        var result: [String: (version: String, state: String)] = [:]
        for row in try execute("SELECT name, version, state FROM tenant_migrator.tenants") {
            result[try row.decode(String.self, at: 0)] = (try row.decode(String.self, at: 1), try row.decode(String.self, at: 2))
        }
        return result
    }
}
