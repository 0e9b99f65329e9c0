import MigrationEngine

extension TenantMigrator {
    /// `check --round-trip`: for every adjacent pair of versions, and for first → last → first,
    /// generates `rowsPerEntity` rows per entity from `seed` in a scratch schema, runs the family's
    /// real plans there and back, and reports each value that did not come back and that no step
    /// declares lost (see ``RoundTripCheck``). Needs a database, touches no tenant and writes
    /// nothing: everything runs in one transaction that is rolled back.
    public func checkRoundTrips(seed: Int = 1, rowsPerEntity: Int = 50) async throws -> RoundTripReport {
        let check = RoundTripCheck(family: family, planner: planner, seed: seed, rowsPerEntity: rowsPerEntity)
        return try await withPlainConnection { connection in try check.run(on: connection) }
    }
}
