import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import TenantMigrator

/// Where the app keeps its database credentials (a secrets manager, a rotated file, …).
protocol DatabaseSecrets: Sendable {
    func databaseURL() async throws -> String
}

/// The facade over connections the app opens itself: its credentials, TLS or proxy setup.
func makeMigrator(secrets: some DatabaseSecrets, familyURL: URL, policies: PolicyRegistry) throws -> TenantMigrator {
    let family = try ModelFamily.load(from: familyURL)
    return TenantMigrator(
        factory: { try await AsyncConnection.connect(try await secrets.databaseURL(), applicationName: "recipes") },
        family: family,
        mappings: try MappingModel.loadAll(for: family, policies: policies),   // the family's Mappings/*.yaml
        policies: policies
    )
}
