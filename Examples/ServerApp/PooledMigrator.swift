import Foundation
import MigrationEngine
import TenantMigrator

/// The facade with its pool sized for the app, and its sessions named in `pg_stat_activity`.
func makePooledMigrator(databaseURL: String, familyURL: URL, policies: PolicyRegistry) throws -> TenantMigrator {
    try TenantMigrator(
        connectionString: databaseURL, familyDirectory: familyURL, policies: policies,
        applicationName: "recipes-migrator",              // application_name in pg_stat_activity
        pool: ConnectionPool.Configuration(
            maximumConnections: 8,                        // in use or idle; callers beyond wait in line
            idleTimeout: .seconds(60),                    // .zero: a new session per call
            cachesCurrentTenants: true                    // one more connection, listening
        )
    )
}
