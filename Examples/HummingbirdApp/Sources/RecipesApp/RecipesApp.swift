import Foundation
import Hummingbird
import LibPQ
import Logging
import PostgresNIO
import RecipesPolicies
import ServiceLifecycle
import TenantMigrator
import TenantMigratorService

/// A Recipes server: TenantMigrator migrates its tenants at boot (as a service beside the HTTP
/// server), opens new ones at sign-up, and hands each request's tenant schema to PostgresNIO, the
/// app's own client. Both clients are imported in this one file.
///
///     DATABASE_URL=postgres://app@localhost/app PGHOST=localhost PGUSER=app PGDATABASE=app swift run
///
/// (run it where `Migrations/Recipes` is, e.g. the repository's root, with `--package-path`.)
@main
struct RecipesApp {
    static func main() async throws {
        let logger = Logger(label: "recipes-app")
        let environment = ProcessInfo.processInfo.environment

        // The migrator: its own pool of libpq sessions (at most 4 here), short lock waits.
        let migrator = try TenantMigrator(
            connectionString: environment["DATABASE_URL"] ?? "",
            familyDirectory: URL(fileURLWithPath: "Migrations/Recipes"),
            policies: RecipesPolicies.registry,
            lockTimeout: .seconds(2),
            maxAttempts: 3,
            applicationName: "recipes-app-migrator",
            pool: ConnectionPool.Configuration(maximumConnections: 4),
            logger: logger
        )
        // Boot: every tenant migrated within 30 s, 4 at a time; the app starts serving anyway, and
        // tenants still held by a lock are retried in the background.
        let migrations = TenantMigratorService(migrator: migrator, deadline: .seconds(30), concurrency: 4, logger: logger)

        // The app's own client for its queries: TCP, or a Unix socket directory as PGHOST.
        let host = environment["PGHOST"] ?? "localhost", port = Int(environment["PGPORT"] ?? "") ?? 5432
        let user = environment["PGUSER"] ?? "app", database = environment["PGDATABASE"] ?? "app"
        let postgres = PostgresClient(
            configuration: host.hasPrefix("/")
                ? .init(unixSocketPath: "\(host)/.s.PGSQL.\(port)", username: user, password: environment["PGPASSWORD"], database: database)
                : .init(host: host, port: port, username: user, password: environment["PGPASSWORD"], database: database, tls: .disable),
            backgroundLogger: logger
        )

        let router = Router()
        router.get("/:tenant/recipes") { _, context -> Response in
            let tenant = try context.parameters.require("tenant")
            // 503 while the tenant is still migrating (or held, or failed): a dictionary lookup
            // for a tenant seen at boot; one created since is looked up in the catalog once.
            guard try await migrations.checkReady(tenant: tenant) else {
                return Response(status: .serviceUnavailable)
            }
            guard let session = try await migrator.tenantSession(for: tenant) else {
                return Response(status: .notFound)
            }
            let names: [String]
            do {
                names = try await postgres.withConnection { connection in
                    // PostgresNIO binds the interpolation as a parameter.
                    try await connection.query("SELECT pg_catalog.set_config('search_path', \(session.searchPath), false)", logger: logger)
                    var names: [String] = []
                    for try await name in try await connection.query("SELECT name FROM recipe ORDER BY name", logger: logger).decode(String.self) {
                        names.append(name)
                    }
                    return names
                }
            } catch let error as PSQLError {
                logger.error("recipes of \(tenant): \(String(reflecting: error))")
                return Response(status: .internalServerError)
            }
            return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: names.joined(separator: "\n"))))
        }
        router.post("/tenants/:tenant") { _, context -> Response in
            let tenant = try context.parameters.require("tenant")
            do {
                _ = try await migrator.createTenant(tenant)
                return Response(status: .created)
            } catch TenantMigratorError.tenantExists {
                return Response(status: .conflict)
            } catch TenantMigratorError.invalidTenantName {
                return Response(status: .badRequest)
            } catch TenantMigratorError.databaseUnavailable(let message) {
                logger.error("database unreachable: \(message)")
                return Response(status: .serviceUnavailable)
            } catch TenantMigratorError.database(let message, let sqlState) where sqlState == SQLState.tooManyConnections.rawValue {
                // LibPQ's SQLState beside PostgresNIO's PSQLError (below): nothing clashes.
                logger.error("database full: \(message)")
                return Response(status: .serviceUnavailable)
            }
        }

        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 8080)), logger: logger)
        let services = ServiceGroup(
            configuration: .init(services: [.init(service: postgres), .init(service: migrations), .init(service: app)],
                                 gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        )
        try await services.run()
    }
}
