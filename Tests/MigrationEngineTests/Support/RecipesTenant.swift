import LibPQ
import TenantMigrator
import TenantMigratorTestSupport
import TypedSQL

/// Stock Recipes' empty tenant `acme` at `version`, with its Swift policies or with the declarative
/// mappings (`Migrations/Recipes/Mappings/Declarative`).
func recipesTenant(_ conninfo: String, declarative: Bool, at version: String)
    async throws -> (migrator: TenantMigrator, connection: Connection, schema: String) {
    let migrator = declarative ? try RecipesPoliciesDeclarativeTests.declarativeMigrator(conninfo) : try makeRecipesMigrator(conninfo)
    let schema = try await migrator.createTenant("acme", version: version).schema
    return (migrator, try Connection(conninfo), schema)
}

/// Stock Recipes' tenant `acme` at v2 (``recipesTenant(_:declarative:at:)``) with a recipe Soup
/// (id 1) and the recipe ingredients `ingredients` (each of Soup).
func recipesTenantAtV2(_ conninfo: String, declarative: Bool, ingredients: [(id: Int, name: String, unit: String, quantity: Int)])
    async throws -> (migrator: TenantMigrator, connection: Connection, schema: String) {
    let (migrator, connection, schema) = try await recipesTenant(conninfo, declarative: declarative, at: "v2")
    try connection.execute("INSERT INTO \(table: "recipe") (id, name) VALUES (1, 'Soup')", schema: schema)
    for row in ingredients {
        try connection.execute("INSERT INTO \(table: "recipe_ingredient") (id, name, unit_of_measure, quantity, recipe_id) VALUES "
            + "(\(bind: .integer(Int64(row.id))), \(literal: row.name), \(literal: row.unit), \(bind: .integer(Int64(row.quantity))), 1)", schema: schema)
    }
    return (migrator, connection, schema)
}
