import ArgumentParser
import EntityModel
import Foundation
import LibPQ
import Logging
import MigrationEngine
import RecipesPolicies
import TenantMigrator
import TypedSQL

/// `tenant-migrate-bench recipes`: Recipes v2 → v3 (seed 003) on one large tenant, four ways,
/// each on a fresh copy of the same data:
///
/// - **sql**: a hand-written script doing the same transformation, run by `psql -f` in one
///   transaction;
/// - **declarative**: no Swift at all, `Migrations/Recipes/Mappings/Declarative/v2-to-v3.yaml`:
///   Ingredient and UnitOfMeasure de-duplicated by distinct mappings, Meat/Fish → Entrée by an
///   expression, through the facade;
/// - **mixed**: Meat/Fish → Entrée declaratively, the ingredient extraction by its Swift policy;
/// - **policies**: the family's own mapping model, with both Swift policies (RecipeTypeToEntree,
///   RecipeIngredientToIngredientAndUnitOfMeasure).
///
/// With `--sizes`, it does so at several numbers of RecipeIngredient rows in one go (the recipes
/// stay `--recipes`). For each run it prints the time, the time per million RecipeIngredient rows
/// and this process's peak memory (VmHWM, reset before the run); then the ratios to SQL, and
/// across sizes how time and memory grew. It checks that all ways produce the same data and the
/// v3 shape. It asserts nothing.
struct RecipesBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recipes",
        abstract: "Time Recipes v2 → v3 through hand-written SQL, declarative mappings and Swift policies."
    )

    @OptionGroup var data: RecipesData

    @Option(help: "RecipeIngredient rows at several sizes, one after another (e.g. 1000000,3000000); replaces --ingredients.")
    var sizes: String?

    @Option(help: "Runs of each way per size (alternating order); the best is reported.")
    var repetitions = 2

    @Option(help: "The ways to time, separated by commas (sql, declarative, mixed, policies; default all). Ratios need sql.")
    var ways: String?

    @OptionGroup var family: FamilyOptions

    @OptionGroup var database: DatabaseOptions

    /// The ways of doing the migration, in the order they are listed.
    enum Way: String, CaseIterable {
        case sql, declarative, mixed, policies

        var label: String {
            switch self {
            case .sql: return "sql (psql -f, one transaction)"
            case .declarative: return "declarative (no Swift)"
            case .mixed: return "declarative Entrée + policy"
            case .policies: return "policies (both Swift)"
            }
        }
    }

    /// The rows of each size.
    var rowCounts: [Int] {
        get throws {
            guard let sizes else { return [data.ingredients] }
            let counts = sizes.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "")) }
            guard !counts.isEmpty, counts.allSatisfy({ ($0 ?? 0) > 0 }) else {
                throw ValidationError("--sizes takes positive row counts separated by commas, e.g. 1000000,3000000")
            }
            return counts.map { $0! }
        }
    }

    /// The ways `--ways` names, in the order they are listed.
    var chosenWays: [Way] {
        get throws {
            guard let ways else { return Way.allCases }
            let names = Set(ways.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            if let unknown = names.first(where: { Way(rawValue: $0) == nil }) {
                throw ValidationError("--ways: no way named \"\(unknown)\"; choose from \(Way.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard !names.isEmpty else { throw ValidationError("--ways names at least one way") }
            return Way.allCases.filter { names.contains($0.rawValue) }
        }
    }

    func validate() throws {
        guard repetitions > 0 else { throw ValidationError("--repetitions must be positive") }
        _ = try rowCounts
        _ = try chosenWays
    }

    func run() async throws {
        let logger = quietLogger()
        let database = try self.database.open("tm_bench_recipes", logger: logger)
        defer { database.close() }
        let psql = try database.server.program("psql")
        let connection = try Connection(database.conninfo, logger: logger)

        let byPolicies = try TenantMigrator(connectionString: database.conninfo, familyDirectory: family.url,
                                            policies: RecipesPolicies.registry, logger: logger)
        let declarativeDirectory = family.url.appendingPathComponent("Mappings/Declarative")
        let byDeclarative = try TenantMigrator(connectionString: database.conninfo, familyDirectory: family.url, mappingsDirectory: declarativeDirectory,
                                               policies: RecipesPolicies.registry, logger: logger)
        let mixed = try MappingModel.load(yaml: Self.mixedMapping, file: "bench/v2-to-v3-mixed.yaml",
                                          family: byPolicies.family, policies: RecipesPolicies.registry)
        // With the family's v3 → v2, as the other ways have it: the way back the archive relies on.
        let wayBack = byPolicies.mappings.filter { $0.sourceVersion == "v3" && $0.destinationVersion == "v2" }
        let byMixed = TenantMigrator(connectionString: database.conninfo, family: byPolicies.family, mappings: [mixed] + wayBack, logger: logger)
        let ways = try chosenWays
        let run = RecipesRun(connection: connection, conninfo: database.conninfo, psql: psql, repetitions: repetitions, ways: ways,
                             migrators: [.policies: byPolicies, .declarative: byDeclarative, .mixed: byMixed])
        print("psql: \(psql)")
        print("declarative: \(declarativeDirectory.path) (distinct mappings, no Swift); "
            + "mixed: declarative Meat/Fish → Entrée + the ingredient policy; policies: \(family.url.path)/Mappings")
        print("peak memory: VmHWM of this benchmark process (which runs the migrator), reset before each run")

        var results: [RecipesRun.SizeResult] = []
        for rows in try rowCounts {
            var data = self.data
            data.ingredients = rows
            results.append(try await run.timeEveryWay(on: data))
        }
        if results.count > 1 { RecipesRun.printGrowth(results, ways: ways) }
        if ways.contains(.declarative) { try await compareDeclarativePart(byDeclarative, source: results.last!.sourceSchema, on: connection) }
    }

    /// The part that is declarative, alone: the statement the MeatAndFishToEntree mapping compiles
    /// to against the hand-written UPDATE, each on a fresh copy of the recipes, best of five.
    private func compareDeclarativePart(_ migrator: TenantMigrator, source: String, on connection: Connection) async throws {
        let schema = try await migrator.createTenant("bench_entree", version: "v2").schema
        let described = try migrator.plan(from: "v2", to: "v3").describe(inSchema: schema, quoting: connection).flatMap(\.statements)
        guard let start = described.firstIndex(where: { $0.hasPrefix("-- mapping MeatAndFishToEntree") }) else {
            throw BenchError("the declarative mapping has no MeatAndFishToEntree")
        }
        let compiled = described[(start + 1)...].prefix { !$0.hasPrefix("-- ") }
        let handWritten = ["UPDATE \(connection.quoteIdentifier(schema)).recipe SET type = 'Entrée' WHERE type IN ('Meat', 'Fish')"]
        var mapping = Timings(), sql = Timings()
        for repetition in 0..<10 {
            let useMapping = repetition % 2 == 0
            try connection.execute(unsafeSQL: "TRUNCATE \(schema).recipe CASCADE")
            try connection.execute(unsafeSQL: "INSERT INTO \(schema).recipe SELECT * FROM \(source).recipe")
            try connection.execute(unsafeSQL: "VACUUM ANALYZE \(schema).recipe")
            let elapsed = try measure {
                try connection.transaction { connection in
                    for statement in useMapping ? Array(compiled) : handWritten { try connection.execute(unsafeSQL: statement) }
                }
            }
            if useMapping { mapping.add(elapsed) } else { sql.add(elapsed) }
        }
        try await migrator.dropTenant("bench_entree", confirmed: true)
        let ratio = mapping.best.inSeconds / sql.best.inSeconds
        print("declarative part alone (Meat/Fish → Entrée on \(format(count: data.recipes)) recipes): compiled \(format(mapping.best)), "
            + "hand-written \(format(sql.best)), best of 5 each")
        print("  compiled: \(compiled.joined(separator: "; "))")
        print(String(format: "  ratio declarative/sql for the declarative part: %.2f (target <= 1.20)%@", ratio, ratio <= 1.2 ? "" : "  ABOVE TARGET"))
    }

    /// Meat/Fish → Entrée declaratively; the ingredient extraction by the Recipes policy.
    static let mixedMapping = """
        source: v2
        destination: v3
        entityMappings:
          - name: RecipeToRecipe
            source: Recipe
            destination: Recipe
            filter: "type NOT IN ('Meat', 'Fish')"
          - name: MeatAndFishToEntree
            source: Recipe
            destination: Recipe
            filter: "type IN ('Meat', 'Fish')"
            attributes: { type: "'Entrée'" }
          - name: RecipeIngredientToIngredientAndUnitOfMeasure
            source: RecipeIngredient
            destination: RecipeIngredient
            policy: RecipeIngredientToIngredientAndUnitOfMeasure
        """
}
