import ArgumentParser
import LibPQ

/// The data of the Recipes benchmarks: one large v2 tenant, generated with COPY, the same rows
/// every time for the same counts.
struct RecipesData: ParsableArguments {
    @Option(help: "Recipes to generate.")
    var recipes = 100_000

    @Option(help: "RecipeIngredient rows to generate.")
    var ingredients = 1_000_000

    @Option(help: "Distinct ingredient names (each always with the same unit).")
    var names = 500

    @Option(help: "Distinct units of measure.")
    var units = 20

    func validate() throws {
        guard recipes > 0, ingredients > 0, names > 0, units > 0 else { throw ValidationError("counts must be positive") }
    }

    /// Recipes of every type and recipe ingredients named from a pool, each name with a fixed unit.
    func generate(into schema: String, on connection: Connection) throws {
        var random = SplitMix64(seed: 0x5eed_0003)
        let types = ["Meat", "Fish", "Vegetarian", "Dessert", "Other", "Entrée"]
        let unitNames = (0..<units).map { $0 % 3 == 0 ? "unité \($0)" : "unit \($0)" }
        let pool = (0..<names).map { index in
            (name: index % 50 == 0 ? "Crème fraîche \(index)" : "Ingredient \(index)", unit: index % 25 == 24 ? nil : unitNames[index % units])
        }
        try connection.copyIn(unsafeSQL: "COPY \(schema).recipe (id, name, type, servings, prep_minutes, method) FROM STDIN") { writer in
            for id in 1...recipes {
                let draw = random.next()
                writer.append(id)
                writer.append("Recipe \(id)")
                writer.append(types[Int(draw % 6)])
                writer.append(id % 9 == 0 ? nil : Int((draw >> 8) % 12) + 1)
                writer.append(id % 4 == 0 ? nil : Int((draw >> 16) % 120) + 5)
                writer.append(id % 5 == 0 ? nil : "Cook recipe \(id) with care")
                try writer.endRow()
            }
        }
        try connection.copyIn(unsafeSQL: "COPY \(schema).recipe_ingredient (id, name, quantity, unit_of_measure, recipe_id) FROM STDIN") { writer in
            for id in 1...ingredients {
                let draw = random.next()
                let entry = pool[Int(draw % UInt64(names))]
                writer.append(id)
                writer.append(entry.name)
                if id % 7 == 0 { writer.append(nil as String?) } else { writer.append("\((draw >> 20) % 1000).\(id % 4 == 0 ? "25" : "5")") }
                writer.append(entry.unit)
                writer.append(id % 97 == 0 ? nil : Int((draw >> 32) % UInt64(recipes)) + 1)
                try writer.endRow()
            }
        }
        try Self.setSequences(of: schema, on: connection)
    }

    /// A fresh copy of the source rows in a new v2 tenant, vacuumed and analyzed like the source.
    func copy(from source: String, to schema: String, on connection: Connection) throws {
        try connection.execute(unsafeSQL: "INSERT INTO \(schema).recipe SELECT * FROM \(source).recipe")
        try connection.execute(unsafeSQL: "INSERT INTO \(schema).recipe_ingredient SELECT * FROM \(source).recipe_ingredient")
        try Self.setSequences(of: schema, on: connection)
        for table in ["recipe", "recipe_ingredient"] { try connection.execute(unsafeSQL: "VACUUM ANALYZE \(schema).\(table)") }
        try connection.execute("CHECKPOINT")
    }

    private static func setSequences(of schema: String, on connection: Connection) throws {
        for table in ["recipe", "recipe_ingredient"] {
            try connection.execute(unsafeSQL: "SELECT setval(pg_get_serial_sequence('\(schema).\(table)', 'id'), (SELECT max(id) FROM \(schema).\(table)))")
        }
    }
}
