import PostgresTestSupport
import TenantMigrator

extension TestPostgres {
    /// Runs `body` with a new, empty database's conninfo and a Recipes migrator on it
    /// (``makeRecipesMigrator(_:policies:catalog:lockTimeout:maxAttempts:logger:)``'s defaults),
    /// and shuts the migrator down afterwards, so that its pool holds no session when the database goes.
    public static func withRecipesMigrator<T>(_ body: (String, TenantMigrator) async throws -> T) async throws -> T {
        try await withDatabaseURL { conninfo in
            let migrator = try makeRecipesMigrator(conninfo)
            do {
                let value = try await body(conninfo, migrator)
                await migrator.shutdown()
                return value
            } catch {
                await migrator.shutdown()
                throw error
            }
        }
    }
}
