import ArgumentParser
import EntityModel
import Foundation
import LibPQ
import Logging
import MigrationEngine
import RecipesPolicies
import TenantMigrator

/// `tenant-migrate-bench recipes`: Recipes v2 → v3 (seed 003) on one large tenant, three ways,
/// each on a fresh copy of the same data:
///
/// - **policies**: the family's own mapping model, with both Swift policies (RecipeTypeToEntree,
///   RecipeIngredientToIngredientAndUnitOfMeasure), through the facade;
/// - **declarative**: Meat/Fish → Entrée as a declarative mapping (`type: "'Entrée'"`), the
///   ingredient extraction still by its policy: a mapping model cannot express it, because every
///   declarative entity mapping makes one destination row per (filtered) source row and cannot
///   de-duplicate across rows (that needs the policy's lookup tables);
/// - **sql**: a hand-written script doing the same transformation, run by `psql -f` in one
///   transaction.
///
/// It prints the times, the ratios to SQL, the runner's peak memory during each run, and checks
/// that all three produce the same data and the v3 shape. It asserts nothing.
struct RecipesBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recipes",
        abstract: "Time Recipes v2 → v3 through Swift policies, a declarative mapping and hand-written SQL."
    )

    @Option(help: "Recipes to generate.")
    var recipes = 100_000

    @Option(help: "RecipeIngredient rows to generate.")
    var ingredients = 1_000_000

    @Option(help: "Distinct ingredient names (each always with the same unit).")
    var names = 500

    @Option(help: "Distinct units of measure.")
    var units = 20

    @Option(help: "Runs of each way (alternating order); the best is reported.")
    var repetitions = 2

    @Option(help: "The Recipes family directory.")
    var familyDirectory = "Migrations/Recipes"

    @Option(help: "Log statements slower than this many milliseconds to the server's log (for profiling).")
    var logSlowStatements: Int?

    @Option(help: "Directory of the embedded server (default /tmp/tenant-migrate-bench-<uid>); ignored with DATABASE_URL.")
    var directory: String?

    static let database = "tm_bench_recipes"

    enum Way: String, CaseIterable { case policies, declarative, sql }

    func run() async throws {
        guard recipes > 0, ingredients > 0, names > 0, units > 0, repetitions > 0 else {
            throw ValidationError("counts and --repetitions must be positive")
        }
        let server = try BenchServer.start(directory: directory)
        defer { server.stop() }
        let psql = try server.program("psql")
        var logger = Logger(label: "tenant-migrate-bench")
        logger.logLevel = .warning

        // A database of its own, dropped at the end.
        let admin = try Connection(server.conninfo, logger: logger)
        try admin.execute("DROP DATABASE IF EXISTS \(Self.database) WITH (FORCE)")
        try admin.execute("CREATE DATABASE \(Self.database) TEMPLATE template0 ENCODING 'UTF8'")
        defer { _ = try? admin.execute("DROP DATABASE IF EXISTS \(Self.database) WITH (FORCE)") }
        if let logSlowStatements {
            try admin.execute("ALTER DATABASE \(Self.database) SET log_min_duration_statement = \(logSlowStatements)")
        }
        let conninfo = Self.conninfo(server.conninfo, database: Self.database)
        let connection = try Connection(conninfo, logger: logger)

        let familyURL = URL(fileURLWithPath: familyDirectory)
        let byPolicies = try TenantMigrator(connectionString: conninfo, familyDirectory: familyURL,
                                            policies: RecipesPolicies.registry, logger: logger)
        let family = byPolicies.family
        let declarative = try MappingModel.load(yaml: Self.declarativeMapping, file: "bench/v2-to-v3-declarative.yaml",
                                                family: family, policies: RecipesPolicies.registry)
        let byDeclarative = TenantMigrator(connectionString: conninfo, family: family, mappings: [declarative], logger: logger)

        // The source data, once, at v2.
        let source = try await byPolicies.createTenant("bench_source", version: "v2").schema
        let generation = try measure { try generate(into: source, on: connection) }
        try connection.execute("VACUUM ANALYZE \(source).recipe")
        try connection.execute("VACUUM ANALYZE \(source).recipe_ingredient")
        let typeCounts = try connection.execute("SELECT type, count(*) FROM \(source).recipe GROUP BY type ORDER BY type")
            .map { "\(try $0.decode(String.self, at: 0)) \(try $0.decode(Int.self, at: 1))" }
        print("data: \(format(count: recipes)) recipes (\(typeCounts.joined(separator: ", "))), \(format(count: ingredients)) recipe ingredients, "
            + "\(names) names, \(units) units; generated with COPY in \(format(generation))")
        print("psql: \(psql)")
        print("ingredient extraction: not expressible as a declarative mapping (no de-duplication across rows); "
            + "'declarative' = declarative Meat/Fish → Entrée + the ingredient policy")

        let scriptURL = FileManager.default.temporaryDirectory.appendingPathComponent("tenant-migrate-bench-\(getuid())-recipes.sql")
        defer { try? FileManager.default.removeItem(at: scriptURL) }

        var timings: [Way: Timings] = [:]
        var peaks: [Way: Int] = [:]
        var checksums: [Way: String] = [:]
        guard let v3 = family.version(named: "v3") else { throw BenchError("the family has no v3") }
        for repetition in 0..<repetitions {
            let order: [Way] = repetition % 2 == 0 ? [.sql, .declarative, .policies] : [.policies, .declarative, .sql]
            var line = "run \(repetition + 1):"
            for way in order {
                let tenant = "bench_\(way.rawValue)_\(repetition + 1)"
                let migrator = way == .declarative ? byDeclarative : byPolicies
                let schema = try await migrator.createTenant(tenant, version: "v2").schema
                try copy(from: source, to: schema, on: connection)
                let peakReset = Self.resetPeakMemory()
                let elapsed: Duration
                switch way {
                case .policies, .declarative:
                    let start = ContinuousClock.now
                    let result = try await migrator.migrate(tenant: tenant, to: "v3")
                    elapsed = ContinuousClock.now - start
                    guard result.outcome == .migrated else { throw BenchError("\(way.rawValue): \(result.outcome)") }
                case .sql:
                    try Self.sqlScript(schema: schema, quoting: connection).write(to: scriptURL, atomically: true, encoding: .utf8)
                    elapsed = try measure {
                        let (status, output) = try runProgram(psql, ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", conninfo, "-f", scriptURL.path])
                        guard status == 0 else { throw BenchError("psql exited with \(status): \(output)") }
                    }
                }
                let peak = Self.peakMemoryKiB()
                peaks[way] = max(peaks[way] ?? 0, peak)
                timings[way, default: Timings()].add(elapsed)

                // Same data, same shape, whichever way.
                let checksum = try Self.checksum(schema, on: connection)
                if let reference = checksums.values.first, reference != checksum {
                    throw BenchError("\(way.rawValue) produced different data: \(checksum) instead of \(reference)")
                }
                checksums[way] = checksum
                let drift = try SchemaSnapshot.read(schema: schema, on: connection).differences(from: SchemaSnapshot.expected(for: v3, on: connection))
                if !drift.isEmpty { throw BenchError("\(way.rawValue) left a schema that differs from v3: \(drift)") }
                line += "  \(way.rawValue) \(format(elapsed)) (peak \(peak / 1024) MiB\(peakReset ? "" : " since start"))"
                try await migrator.dropTenant(tenant, confirmed: true)
            }
            print(line)
        }
        print("checks: all runs produced the same data (\(checksums[.sql]!)) and the v3 schema")

        let sql = timings[.sql]!.best, declarativeTime = timings[.declarative]!.best, policiesTime = timings[.policies]!.best
        print("sql (psql -f, one transaction): best \(format(sql))")
        print("declarative Entrée + policy:    best \(format(declarativeTime))")
        print("policies (both Swift):          best \(format(policiesTime))")
        let declarativeRatio = declarativeTime.inSeconds / sql.inSeconds
        let policiesRatio = policiesTime.inSeconds / sql.inSeconds
        print(String(format: "ratio declarative/sql: %.2f (target <= 1.20)%@", declarativeRatio, declarativeRatio <= 1.2 ? "" : "  ABOVE TARGET"))
        print(String(format: "ratio policies/sql:    %.2f (target <= 3.00)%@", policiesRatio, policiesRatio <= 3 ? "" : "  ABOVE TARGET"))
        let policyPeak = peaks[.policies]! / 1024
        print("peak memory (VmHWM) of this process during each run: policies \(policyPeak) MiB (target < 200)\(policyPeak < 200 ? "" : "  ABOVE TARGET"), "
            + "declarative \(peaks[.declarative]! / 1024) MiB, sql \(peaks[.sql]! / 1024) MiB")
        try await compareDeclarativePart(byDeclarative, source: source, on: connection)
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
            try connection.execute("TRUNCATE \(schema).recipe CASCADE")
            try connection.execute("INSERT INTO \(schema).recipe SELECT * FROM \(source).recipe")
            try connection.execute("VACUUM ANALYZE \(schema).recipe")
            let elapsed = try measure {
                try connection.transaction { connection in
                    for statement in useMapping ? Array(compiled) : handWritten { try connection.execute(statement) }
                }
            }
            if useMapping { mapping.add(elapsed) } else { sql.add(elapsed) }
        }
        try await migrator.dropTenant("bench_entree", confirmed: true)
        let ratio = mapping.best.inSeconds / sql.best.inSeconds
        print("declarative part alone (Meat/Fish → Entrée on \(format(count: recipes)) recipes): compiled \(format(mapping.best)), "
            + "hand-written \(format(sql.best)), best of 5 each")
        print("  compiled: \(compiled.joined(separator: "; "))")
        print(String(format: "  ratio declarative/sql for the declarative part: %.2f (target <= 1.20)%@", ratio, ratio <= 1.2 ? "" : "  ABOVE TARGET"))
    }

    // MARK: Data

    /// Recipes of every type and recipe ingredients named from a pool, each name with a fixed unit.
    func generate(into schema: String, on connection: Connection) throws {
        var random = RecipesBenchRandom(seed: 0x5eed_0003)
        let types = ["Meat", "Fish", "Vegetarian", "Dessert", "Other", "Entrée"]
        let unitNames = (0..<units).map { $0 % 3 == 0 ? "unité \($0)" : "unit \($0)" }
        let pool = (0..<names).map { index in
            (name: index % 50 == 0 ? "Crème fraîche \(index)" : "Ingredient \(index)", unit: index % 25 == 24 ? nil : unitNames[index % units])
        }
        try connection.copyIn("COPY \(schema).recipe (id, name, type, servings, prep_minutes, method) FROM STDIN") { writer in
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
        try connection.copyIn("COPY \(schema).recipe_ingredient (id, name, quantity, unit_of_measure, recipe_id) FROM STDIN") { writer in
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
        for table in ["recipe", "recipe_ingredient"] {
            try connection.execute("SELECT setval(pg_get_serial_sequence('\(schema).\(table)', 'id'), (SELECT max(id) FROM \(schema).\(table)))")
        }
    }

    /// A fresh copy of the source rows in a new v2 tenant, vacuumed and analyzed like the source.
    func copy(from source: String, to schema: String, on connection: Connection) throws {
        try connection.execute("INSERT INTO \(schema).recipe SELECT * FROM \(source).recipe")
        try connection.execute("INSERT INTO \(schema).recipe_ingredient SELECT * FROM \(source).recipe_ingredient")
        for table in ["recipe", "recipe_ingredient"] {
            try connection.execute("SELECT setval(pg_get_serial_sequence('\(schema).\(table)', 'id'), (SELECT max(id) FROM \(schema).\(table)))")
            try connection.execute("VACUUM ANALYZE \(schema).\(table)")
        }
        try connection.execute("CHECKPOINT")
    }

    /// Row count and an order-independent hash of what v3 holds, independent of the ids given to
    /// new Ingredient and UnitOfMeasure rows.
    static func checksum(_ schema: String, on connection: Connection) throws -> String {
        let row = try connection.execute("""
            SELECT (SELECT count(*) FROM \(schema).recipe_ingredient)::text || ' rows, '
                || (SELECT coalesce(sum(hashtext(ri.id || '|' || coalesce(ri.quantity::text, '') || '|' || coalesce(ri.recipe_id::text, '')
                        || '|' || i.name || '|' || coalesce(u.name, ''))::int8), 0)
                    FROM \(schema).recipe_ingredient ri JOIN \(schema).ingredient i ON i.id = ri.ingredient_id
                    LEFT JOIN \(schema).unit_of_measure u ON u.id = i.unit_of_measure_id)::text || '/'
                || (SELECT coalesce(sum(hashtext(r.id || '|' || r.type || '|' || r.name)::int8), 0) FROM \(schema).recipe r)::text || '/'
                || (SELECT count(*) FROM \(schema).ingredient)::text || ' ingredients/'
                || (SELECT count(*) FROM \(schema).unit_of_measure)::text || ' units'
            """)[0]
        return try row.decode(String.self, at: 0)
    }

    // MARK: The two other ways

    /// Meat/Fish → Entrée declaratively; the ingredient extraction by the Recipes policy.
    static let declarativeMapping = """
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

    /// The same transformation by hand, as a DBA would write it; names as v3 has them.
    static func sqlScript(schema: String, quoting q: some SQLQuoting) -> String {
        let s = q.quoteIdentifier(schema)
        return """
            BEGIN;
            UPDATE \(s).recipe SET type = 'Entrée' WHERE type IN ('Meat', 'Fish');
            CREATE TABLE \(s).unit_of_measure (
                id bigint GENERATED BY DEFAULT AS IDENTITY,
                name text NOT NULL,
                CONSTRAINT unit_of_measure_pkey PRIMARY KEY (id),
                CONSTRAINT unit_of_measure_name_key UNIQUE (name)
            );
            CREATE TABLE \(s).ingredient (
                id bigint GENERATED BY DEFAULT AS IDENTITY,
                name text NOT NULL,
                unit_of_measure_id bigint,
                CONSTRAINT ingredient_pkey PRIMARY KEY (id),
                CONSTRAINT ingredient_name_key UNIQUE (name)
            );
            INSERT INTO \(s).unit_of_measure (name)
                SELECT DISTINCT unit_of_measure FROM \(s).recipe_ingredient WHERE unit_of_measure IS NOT NULL;
            -- Each ingredient takes the unit of the first recipe ingredient that names it.
            INSERT INTO \(s).ingredient (name, unit_of_measure_id)
                SELECT DISTINCT ON (ri.name) ri.name, u.id
                FROM \(s).recipe_ingredient ri LEFT JOIN \(s).unit_of_measure u ON u.name = ri.unit_of_measure
                ORDER BY ri.name, ri.id;
            ALTER TABLE \(s).recipe_ingredient ADD COLUMN ingredient_id bigint;
            UPDATE \(s).recipe_ingredient ri SET ingredient_id = i.id FROM \(s).ingredient i WHERE i.name = ri.name;
            ALTER TABLE \(s).recipe_ingredient ALTER COLUMN ingredient_id SET NOT NULL;
            ALTER TABLE \(s).recipe_ingredient DROP COLUMN name, DROP COLUMN unit_of_measure;
            ALTER TABLE \(s).ingredient ADD CONSTRAINT ingredient_unit_of_measure_id_fkey
                FOREIGN KEY (unit_of_measure_id) REFERENCES \(s).unit_of_measure (id) ON DELETE SET NULL;
            ALTER TABLE \(s).recipe_ingredient ADD CONSTRAINT recipe_ingredient_ingredient_id_fkey
                FOREIGN KEY (ingredient_id) REFERENCES \(s).ingredient (id) ON DELETE RESTRICT;
            CREATE INDEX ingredient_unit_of_measure_id_idx ON \(s).ingredient (unit_of_measure_id);
            CREATE INDEX recipe_ingredient_ingredient_id_idx ON \(s).recipe_ingredient (ingredient_id);
            COMMIT;

            """
    }

    // MARK: Helpers

    /// `conninfo` pointing at `database` instead (a later `dbname` wins in a key=value string).
    static func conninfo(_ conninfo: String, database: String) -> String {
        if conninfo.hasPrefix("postgres://") || conninfo.hasPrefix("postgresql://"), var components = URLComponents(string: conninfo) {
            components.path = "/" + database
            return components.string ?? conninfo
        }
        return conninfo + " dbname='\(database)'"
    }

    /// Resets VmHWM to the current RSS (Linux `clear_refs` 5); false if that is not possible.
    static func resetPeakMemory() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    /// VmHWM from /proc/self/status, in KiB (0 where there is no /proc).
    static func peakMemoryKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
    }
}

/// SplitMix64, so every run generates the same rows.
struct RecipesBenchRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
