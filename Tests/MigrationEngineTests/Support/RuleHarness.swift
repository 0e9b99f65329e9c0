import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import PostgresTestSupport
import Testing

/// Shared steps of the lightweight-rule tests: load a fixture family, build a version's schema with
/// rows, migrate it with the planner, verify the schema against the model and read rows back.
struct RuleHarness {
    let family: ModelFamily
    let planner: MigrationPlanner

    static let fixtures = PackagePaths.root.appendingPathComponent("Tests/MigrationEngineTests/Fixtures")

    init(_ name: String) throws {
        family = try ModelFamily.load(from: Self.fixtures.appendingPathComponent(name))
        planner = MigrationPlanner(family: family)
    }

    func version(_ name: String) -> ModelVersion { family.version(named: name)! }

    /// Creates `schema` at `version` and runs `seed` (SQL, `$S` replaced by the quoted schema).
    func build(_ version: String, schema: String = "t", seed: String = "", on connection: Connection) throws {
        try connection.fixtureScript("CREATE SCHEMA \(connection.quoteIdentifier(schema))")
        try connection.fixtureScript(self.version(version).relationalSchema().createStatements(inSchema: schema, quoting: connection).joined(separator: ";\n"))
        if !seed.isEmpty { try connection.fixtureScript(seed.replacingOccurrences(of: "$S", with: connection.quoteIdentifier(schema))) }
        try expectSchema(version, schema: schema, on: connection)
    }

    /// Plans and runs `from → to` in one transaction; returns the plan.
    @discardableResult
    func migrate(_ from: String, _ to: String, schema: String = "t", on connection: Connection) throws -> MigrationPlan {
        let plan = try planner.plan(from: from, to: to)
        _ = try connection.transaction { try plan.run(inSchema: schema, on: $0) }
        return plan
    }

    /// The SQL a plan would run.
    func statements(_ plan: MigrationPlan, schema: String = "t", on connection: Connection) -> [String] {
        plan.describe(inSchema: schema, quoting: connection).flatMap(\.statements)
    }

    /// Expects the live schema to match `version` exactly.
    func expectSchema(_ version: String, schema: String = "t", on connection: Connection,
                      sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let live = try SchemaSnapshot.read(schema: schema, on: connection)
        let differences = live.differences(from: try SchemaSnapshot.expected(for: self.version(version), on: connection))
        #expect(differences.isEmpty, "schema \(schema) differs from \(family.name) \(version): \(differences)", sourceLocation: sourceLocation)
    }

    /// Every row of a query, its columns as text joined by `|` (NULL as `∅`); `$S` is the schema.
    func rows(_ sql: String, schema: String = "t", on connection: Connection) throws -> [String] {
        let result = try connection.execute(unsafeSQL: sql.replacingOccurrences(of: "$S", with: connection.quoteIdentifier(schema)))
        return try result.map { row in
            try (0..<result.columnCount).map { try row.decode(String?.self, at: $0) ?? "∅" }.joined(separator: "|")
        }
    }

    /// Expects `body` to fail with SQLSTATE `state`.
    func expectFailure(_ state: SQLState, sourceLocation: Testing.SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("expected SQLSTATE \(state), but it succeeded", sourceLocation: sourceLocation)
        } catch let error as PQError {
            #expect(error.sqlState == state, "\(error)", sourceLocation: sourceLocation)
        } catch let violation as ConstraintViolation {
            // A constraint the step adds, with the row that breaks it named (issue 34).
            #expect(violation.underlying.sqlState == state && violation.rowID != nil, "\(violation)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected SQLSTATE \(state), got \(error)", sourceLocation: sourceLocation)
        }
    }
}
