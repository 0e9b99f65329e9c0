import Logging
import Vapor

/// A Recipes server on Vapor 4 whose tenants TenantMigrator migrates at boot (see `configure`).
///
///     DATABASE_URL=postgres://app@localhost/app swift run
@main
enum Entrypoint {
    static func main() async throws {
        var environment = try Environment.detect()
        try LoggingSystem.bootstrap(from: &environment)
        let app = try await Application.make(environment)
        do {
            try await configure(app)
            try await app.execute()
        } catch {
            app.logger.report(error: error)
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }
}
