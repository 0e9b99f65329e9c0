import Foundation
import RecipesPolicies
import TenantMigrator
import TenantMigratorService
import Vapor

/// Where the app keeps its migrator and its boot service.
struct MigratorKey: StorageKey {
    typealias Value = TenantMigrator
}

struct MigrationServiceKey: StorageKey {
    typealias Value = TenantMigratorService
}

/// Builds the migrator, runs `TenantMigratorService` beside the app (migrating every tenant at boot,
/// retrying held ones in the background) and adds the routes.
func configure(_ app: Application) async throws {
    let migrator = try TenantMigrator(
        connectionString: Environment.get("DATABASE_URL") ?? "",
        familyDirectory: URL(fileURLWithPath: app.directory.workingDirectory + "Migrations/Recipes"),
        policies: RecipesPolicies.registry,
        lockTimeout: .seconds(2),
        maxAttempts: 3,
        applicationName: "recipes-vapor-migrator",
        logger: app.logger
    )
    let migrations = TenantMigratorService(migrator: migrator, deadline: .seconds(30), concurrency: 4, logger: app.logger)
    app.storage[MigratorKey.self] = migrator
    app.storage[MigrationServiceKey.self] = migrations
    app.lifecycle.use(MigrationServiceLifecycle(service: migrations))

    app.get(":tenant", "status") { request async throws -> String in
        let tenant = try request.parameters.require("tenant")
        switch migrations.status(of: tenant) {
        case .ready:
            return "ready"
        case .unknown:
            // Created after boot? Look it up once (and migrate it in the background if behind).
            guard try await migrations.checkReady(tenant: tenant) else { throw Abort(.serviceUnavailable) }
            return "ready"
        default:
            throw Abort(.serviceUnavailable)
        }
    }
    app.post("tenants", ":tenant") { request async throws -> HTTPStatus in
        let tenant = try request.parameters.require("tenant")
        do {
            _ = try await migrator.createTenant(tenant)
            return .created
        } catch TenantMigratorError.tenantExists {
            return .conflict
        }
    }
}

/// Runs the service from Vapor's boot to its shutdown (Vapor has its own lifecycle, not
/// swift-service-lifecycle's `ServiceGroup`).
struct MigrationServiceLifecycle: LifecycleHandler {
    let service: TenantMigratorService
    private let task = TaskBox()

    func didBootAsync(_ application: Application) async throws {
        let service = self.service
        task.set(Task { try await service.run() })
    }

    func shutdownAsync(_ application: Application) async {
        task.cancel()
    }
}

/// The service's task, set once at boot and cancelled at shutdown.
final class TaskBox: @unchecked Sendable {
    private let lock = NSLock()
    private var task: Task<Void, any Error>?

    func set(_ task: Task<Void, any Error>) { lock.withLock { self.task = task } }
    func cancel() { lock.withLock { task?.cancel() } }
}
