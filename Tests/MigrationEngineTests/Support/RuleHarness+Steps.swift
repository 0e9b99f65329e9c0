import LibPQ
import MigrationEngine
import Testing

/// The step every lightweight-rule test repeats: migrate, check the schema, read the rows back.
extension RuleHarness {
    /// Migrates `from → to` and expects the live schema to match `to` exactly; returns the plan.
    @discardableResult
    func migrateExpectingSchema(_ from: String, _ to: String, schema: String = "t", on connection: Connection,
                                sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> MigrationPlan {
        let plan = try migrate(from, to, schema: schema, on: connection)
        try expectSchema(to, schema: schema, on: connection, sourceLocation: sourceLocation)
        return plan
    }

    /// Migrates `from → to`, expects the live schema to match `to` exactly, and expects `query` to
    /// read `expected` then (rows as ``rows(_:schema:on:)`` gives them).
    func migrateExpecting(_ from: String, _ to: String, schema: String = "t", on connection: Connection,
                          rows query: String, _ expected: [String],
                          sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        try migrateExpectingSchema(from, to, schema: schema, on: connection, sourceLocation: sourceLocation)
        #expect(try rows(query, schema: schema, on: connection) == expected, sourceLocation: sourceLocation)
    }
}
