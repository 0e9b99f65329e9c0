import Foundation
import LibPQ
import Logging
import TenantMigrator

// The framework-free parts of docs/ServerApps.md as one program: with DATABASE_URL set (and run
// from the repository, where Migrations/Recipes is), it signs up tenant `acme`, serves one request
// for it on the app's own connection, and runs the boot service until SIGTERM.
LoggingSystem.bootstrap(StreamLogHandler.standardError)
let logger = Logger(label: "recipes")
let databaseURL = ProcessInfo.processInfo.environment["DATABASE_URL"] ?? ""

let migrator = try makeMigrator()
let acme = try await signUp("acme", migrator: migrator)
logger.info("tenant \(acme.name) at \(acme.version), schema \(acme.schema)")

let appConnection = try await AsyncConnection.connect(databaseURL, applicationName: "recipes-app")
let recipes = try await recipeCount(tenant: "acme", migrator: migrator, appConnection: appConnection)
logger.info("acme has \(recipes) recipes")
await appConnection.close()

try await runServices(migrator: migrator, logger: logger)
await migrator.shutdown()
