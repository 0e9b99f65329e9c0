import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import Testing

/// `Tests/MigrationEngineTests/Fixtures/<name>`.
func fixture(_ name: String) -> URL {
    PackagePaths.root.appendingPathComponent("Tests/MigrationEngineTests/Fixtures/\(name)")
}

/// `check --round-trip` over the fixture family `name` (seed 7, 20 synthetic rows per entity):
/// it makes trips, and every trip carries rows and passes, every value back.
func expectRoundTripsPass(overFixture name: String) async throws {
    try await TestPostgres.withDatabaseURL { conninfo in
        let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: fixture(name))
        let report = try await migrator.checkRoundTrips(seed: 7, rowsPerEntity: 20)
        #expect(!report.trips.isEmpty)
        for trip in report.trips {
            #expect(trip.passed, "\(trip.path): \(trip.error ?? "") \(trip.differences.prefix(3))")
            #expect(trip.rows > 0, "\(trip.path)")
        }
    }
}

/// A mapping file of the fixtures, loaded against `family`.
func loadMapping(_ path: String, family: ModelFamily, policies: PolicyRegistry) throws -> MappingModel {
    let text = try String(contentsOf: fixture(path), encoding: .utf8)
    return try MappingModel.load(yaml: text, file: path, family: family, policies: policies)
}

/// The 1-based line of the first line of `text` that contains `marker`.
func line(of marker: String, in text: String) -> Int {
    let lines = text.components(separatedBy: "\n")
    return (lines.firstIndex { $0.contains(marker) } ?? -1) + 1
}

/// Generated Recipes data: recipes of every type (a few already Entrée), and recipe ingredients
/// named from a pool where each name always comes with the same unit (or always none).
struct RecipeData {
    struct Recipe { var id: Int64, name: String, type: String, servings: Int?, instructions: String? }
    struct Ingredient { var id: Int64, name: String, quantity: String?, unit: String?, recipeID: Int64? }

    static let units = ["g", "kg", "ml", "l", "tsp", "tbsp", "cup", "pièce"]
    static let specialNames = ["Baker's yeast", "Crème fraîche", "Back\\slash salt", "Tab\tpepper", "\"Quoted\" oil", "Line\nbreak sugar"]

    var recipes: [Recipe] = []
    var ingredients: [Ingredient] = []

    /// The pool of ingredient names and each name's unit.
    static func pool(size: Int) -> [(name: String, unit: String?)] {
        (0..<size).map { index in
            let name = index < specialNames.count ? specialNames[index] : "Ingredient \(index)"
            return (name, index % 15 == 14 ? nil : units[index % units.count])
        }
    }

    init(recipes recipeCount: Int, ingredients ingredientCount: Int, poolSize: Int = 60, seed: UInt64 = 42,
         types: [String] = ["Meat", "Fish", "Vegetarian", "Dessert", "Other"], poison: Bool = false) {
        var random = SeededGenerator(seed: seed)
        for index in 1...recipeCount {
            let type = index % 60 == 0 ? "Entrée" : types.randomElement(using: &random)!
            recipes.append(Recipe(id: Int64(index * 2), name: "Recipe \(index)", type: type,
                                  servings: index % 9 == 0 ? nil : Int.random(in: 1...12, using: &random),
                                  instructions: index % 5 == 0 ? nil : "Cook recipe \(index) with care"))
        }
        let pool = Self.pool(size: poolSize)
        for index in 1...ingredientCount {
            let (name, unit) = pool.randomElement(using: &random)!
            let quantity = index % 7 == 0 ? nil : "\(Int.random(in: 1...999, using: &random)).\(index % 4 == 0 ? "25" : "50")"
            let recipeID = index % 97 == 0 ? nil : recipes.randomElement(using: &random)!.id
            ingredients.append(Ingredient(id: Int64(index * 3 + 1), name: name, quantity: quantity, unit: unit, recipeID: recipeID))
        }
        if poison { ingredients[ingredients.count / 2].name = "poison" }
    }

    /// Inserts the data into a tenant's schema at `version` (v1: `instructions`; v2: `method`).
    func insert(into schema: String, version: String, on connection: Connection) throws {
        let schema = connection.quoteIdentifier(schema)
        func copy(_ rows: [[String?]], into table: String, columns: String) throws {
            try connection.copyIn(unsafeSQL: "COPY \(schema).\(table) (\(columns)) FROM STDIN") { writer in
                for row in rows { try writer.writeRow(row) }
            }
            try connection.execute(unsafeSQL: "SELECT setval(pg_get_serial_sequence($1, 'id'), (SELECT max(id) FROM \(schema).\(table)))", ["\(schema).\(table)"])
        }
        try copy(recipes.map { [String($0.id), $0.name, $0.type, $0.servings.map(String.init), $0.instructions] },
                 into: "recipe", columns: "id, name, type, servings, \(version == "v1" ? "instructions" : "method")")
        try copy(ingredients.map { [String($0.id), $0.name, $0.quantity, $0.unit, $0.recipeID.map(String.init)] },
                 into: "recipe_ingredient", columns: "id, name, quantity, unit_of_measure, recipe_id")
    }

    var distinctNames: Int { Set(ingredients.map(\.name)).count }
    var distinctUnits: Int { Set(ingredients.compactMap(\.unit)).count }
    var meatAndFish: Int { recipes.filter { $0.type == "Meat" || $0.type == "Fish" }.count }
    var entrees: Int { recipes.filter { $0.type == "Entrée" }.count }
}

/// Verifies one tenant's live schema against its recorded version; records the differences.
func verifyClean(_ migrator: TenantMigrator, _ tenant: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> Bool {
    let reports = try await migrator.verify(tenants: [tenant])
    guard reports.count == 1 else { return false }
    if !reports[0].isClean {
        Issue.record("tenant \(tenant) drifted: \(reports[0].differences) \(reports[0].hashMismatch ?? "")", sourceLocation: sourceLocation)
    }
    return reports[0].isClean
}

/// A migrator for the fixture family `family` and its tenant `acme` at `version`, with the rows
/// `insert` adds (`{schema}` stands for the tenant's schema).
func fixtureTenant(_ family: String, _ conninfo: String, version: String = "v1", policies: PolicyRegistry = PolicyRegistry(),
                   insert: String) async throws -> (migrator: TenantMigrator, connection: Connection, schema: String) {
    let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: fixture(family), policies: policies)
    let schema = try await migrator.createTenant("acme", version: version).schema
    let connection = try Connection(conninfo)
    try connection.execute(unsafeSQL: insert.replacingOccurrences(of: "{schema}", with: schema))
    return (migrator, connection, schema)
}

/// BugTracker v2 → v3 as a mapping file with the given `distinct:` and `orderBy:` (YAML values),
/// the rest as the family's own: a Status per key, each issue linked, NULL priorities 0.
func bugTrackerMapping(distinct: String, orderBy: String) -> String {
    """
    source: v2
    destination: v3
    entityMappings:
      - name: IssueToStatus
        source: Issue
        destination: Status
        distinct: \(distinct)
        orderBy: \(orderBy)
        attributes: { name: source.status }
      - name: IssueToIssue
        source: Issue
        destination: Issue
        attributes: { priority: "coalesce(source.priority, 0)" }
        relationships: { status: IssueToStatus }
    """
}
