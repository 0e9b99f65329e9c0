import LibPQ
import MigrationEngine
import PostgresTestSupport
import Testing

/// What a connection's server can do is asked of the server once per connection, and plain
/// PostgreSQL has none of Citus's needs (the Citus suite checks the other side).
struct ServerCapabilitiesTests {
    @Test func plainPostgreSQLIsToldApartOnceAndHasNoneOfCitussNeeds() async throws {
        try await TestPostgres.withDatabase { connection in
            connection.resetStatistics()
            let capabilities = try connection.capabilities
            #expect(connection.statistics.roundTrips == 1, "the first ask reads pg_extension")
            #expect(capabilities == .postgreSQL)
            #expect(!capabilities.distributesNewSchemas && !capabilities.propagatesOnlySetStatements)
            #expect(capabilities.holdsPolicyTablesAlone && capabilities.notesRowsOfCopies && capabilities.buildsJSONOfColumnsInUpdates)
            #expect(!capabilities.swapsShadowsInByRenames && !capabilities.requiresTriggersToBeAllowed)
            #expect(try connection.keepingNewSchemasLocal().isEmpty && connection.distributingNewSchemas().isEmpty)

            // Asked again (as each statement builder does), it costs nothing.
            connection.resetStatistics()
            #expect(try connection.capabilities == capabilities)
            #expect(connection.statistics.roundTrips == 0)
        }
    }
}
