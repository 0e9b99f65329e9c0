import ArgumentParser
import Foundation
import LibPQ
import TenantMigrateCLI
import TenantMigrator

/// `tenant-migrate demo`: a guided tour on the embedded server (or DATABASE_URL). Only the
/// `tenant-migrate` executable has it: the Recipes family is its own.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Create demo tenants with sample recipes, migrate them, roll one back, and verify.",
        discussion: "Re-runnable: the demo tenants (demo_acme, demo_globex, demo_initech) are dropped and recreated each time. Nothing else is touched."
    )

    @OptionGroup var options: RunnerOptions<TenantMigrate>

    static let tenants = ["demo_acme", "demo_globex", "demo_initech"]

    func run() async throws {
        try await options.withMigrator(tour)
    }

    /// The tour, on the command's one migrator (shut down by ``RunnerOptions/withMigrator(_:)``).
    private func tour(_ migrator: TenantMigrator) async throws {
        let family = migrator.family
        let first = family.versionNames[0]
        section("1. Creating \(Self.tenants.count) tenants at \(family.name) \(first), with sample recipes")
        for name in Self.tenants {
            if try await migrator.tenants().contains(where: { $0.name.rawValue == name }) {
                try await migrator.dropTenant(name, confirmed: true)
            }
            let record = try await migrator.createTenant(name, version: first)
            let schema = record.schema
            try await migrator.withConnection { connection in try Self.insertSampleRecipes(schema: schema, on: connection) }
            print("  created \(name) (schema \(schema)) at \(record.version)")
        }
        try await printStatus(migrator)

        section("2. Planning and migrating every tenant to the latest version they can reach")
        let reachable = lastInferable(migrator)
        let plan = try migrator.plan(from: first, to: reachable)
        for step in plan.steps { print("  step: \(step)") }
        for name in Self.tenants {
            let result = try await migrator.migrate(tenant: name, to: reachable)
            print("  \(name): \(result.fromVersion) → \(result.toVersion), \(result.outcome.rawValue) in \(Int(result.milliseconds)) ms")
        }
        if reachable != family.latestVersion.name {
            print("  (\(reachable) → \(family.latestVersion.name) needs its mapping model; `tenant-migrate check` shows each step)")
        }
        try await show(migrator, tenant: Self.tenants[0], tables: ["recipe", "recipe_ingredient", "ingredient", "unit_of_measure"])

        let names = family.versionNames
        let previous = names[max(0, (names.firstIndex(of: reachable) ?? 1) - 1)]
        section("3. Rolling demo_globex back to \(previous)")
        let rollbackPlan = try migrator.plan(from: reachable, to: previous)
        for change in rollbackPlan.destructiveChanges { print("  warning: \(change)") }
        let result = try await migrator.rollback(tenant: "demo_globex", to: previous, allowDestructive: true)
        print("  demo_globex: \(result.fromVersion) → \(result.toVersion), \(result.outcome.rawValue)")
        try await show(migrator, tenant: "demo_globex", tables: ["recipe", "recipe_ingredient"])

        section("4. Status and verification")
        try await printStatus(migrator)
        for report in try await migrator.verify(tenants: Self.tenants) {
            print("  verify \(report.tenant): \(report.isClean ? "ok, the live schema matches \(report.version)" : "DRIFT (\(report.differences.count) differences)")")
        }
    }

    /// The last version reachable from the first by inferred or mapped steps.
    private func lastInferable(_ migrator: TenantMigrator) -> String {
        var reachable = migrator.family.versionNames[0]
        for name in migrator.family.versionNames.dropFirst() {
            guard (try? migrator.plan(from: reachable, to: name)) != nil else { break }
            reachable = name
        }
        return reachable
    }

    static func insertSampleRecipes(schema: String, on connection: Connection) throws {
        let recipe: SQL = "\(schema: schema, table: "recipe")"
        let ingredient: SQL = "\(schema: schema, table: "recipe_ingredient")"
        let samples: [(String, String, Int16, [(String, Decimal, String)])] = [
            ("Beef stew", "Meat", 4, [("Beef", 800, "g"), ("Carrot", 3, "piece"), ("Red wine", 250, "ml")]),
            ("Grilled salmon", "Fish", 2, [("Salmon", 400, "g"), ("Lemon", 1, "piece")]),
            ("Ratatouille", "Vegetarian", 4, [("Courgette", 2, "piece"), ("Tomato", 500, "g")]),
            ("Crème brûlée", "Dessert", 6, [("Cream", 500, "ml"), ("Sugar", 100, "g")]),
        ]
        try connection.transaction { connection in
            for (name, type, servings, ingredients) in samples {
                let id = try connection.execute(
                    "INSERT INTO \(recipe) (name, type, servings, instructions) VALUES ($1, $2, $3, $4) RETURNING id",
                    [name, type, servings, "Cook \(name.lowercased()) with care."]
                ).first!.decode(Int64.self, at: 0)
                for (ingredientName, quantity, unit) in ingredients {
                    try connection.execute(
                        "INSERT INTO \(ingredient) (recipe_id, name, quantity, unit_of_measure) VALUES ($1, $2, $3, $4)",
                        [id, ingredientName, quantity, unit]
                    )
                }
            }
        }
    }

    /// Prints the rows of `tables` (those that exist) in the tenant's schema.
    private func show(_ migrator: TenantMigrator, tenant: String, tables: [String]) async throws {
        let record = try await migrator.tenants().first { $0.name.rawValue == tenant }!
        let schema = record.schema
        let dumps: [(String, [[String]])] = try await migrator.withConnection { connection in
            try tables.compactMap { table in
                let columns = try connection.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position",
                    [schema, table]
                ).map { try $0.decode(String.self, at: 0) }
                guard !columns.isEmpty else { return nil }
                let result = try connection.execute("SELECT * FROM \(schema: schema, table: table) ORDER BY id")
                return (table, [columns] + result.map { row in columns.indices.map { row[$0] ?? "NULL" } })
            }
        }
        for (table, rows) in dumps {
            print("  \(tenant).\(table) at \(record.version):")
            TextTable.print(rows[0].map { $0.uppercased() }, Array(rows.dropFirst()), indent: "    ")
        }
    }

    private func printStatus(_ migrator: TenantMigrator) async throws {
        for status in try await migrator.status() where Self.tenants.contains(status.record.name.rawValue) {
            print("  \(status.record.name): \(status.record.version)\(status.isCurrent ? " (latest)" : ", latest is \(status.latestVersion)")")
        }
    }

    private func section(_ title: String) { print("\n== \(title)") }
}
