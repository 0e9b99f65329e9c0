import EntityModel
import LibPQ
import PostgresTestSupport
import Testing
import TypedSQL

/// Helpers shared by the snapshot and drift tests.
enum SnapshotFixtures {
    /// The schema the tests render a version into, as a tenant's.
    static let tenant = "tenant_a"

    /// Version `version` of `family` (`Recipes` from `Migrations/`, or the test family `Library`).
    static func model(_ family: String, _ version: String) throws -> ModelVersion {
        let url = PackagePaths.modelFamily(family)
        return try #require(try ModelFamily.load(from: url).version(named: version))
    }

    /// Creates `schema` and renders `version` into it.
    static func render(_ version: ModelVersion, into schema: String = tenant, on connection: Connection) throws {
        try connection.fixtureScript("CREATE SCHEMA \(connection.quoteIdentifier(schema))")
        try connection.fixtureScript(version.relationalSchema().renderScript(inSchema: schema, quoting: .postgreSQL))
    }

    /// The names of the scratch schemas that `expected(for:on:)` creates, if any remain.
    static func scratchSchemas(on connection: Connection) throws -> [String] {
        try connection.execute(#"SELECT nspname::text FROM pg_namespace WHERE nspname LIKE '\_tm\_expected\_%'"#)
            .map { try $0.decode(String.self, at: 0) }
    }
}
