import EntityModel
import LibPQ
import Logging

/// Creates, drops, adopts and verifies the tenants of one model family in one catalog.
///
/// Every method takes the connection to run on; each is one transaction (creating a tenant is a
/// single round trip), holding the tenant's lock (its catalog row).
public struct TenantLifecycle: Sendable {
    public let catalog: TenantCatalog
    public let family: ModelFamily

    public init(catalog: TenantCatalog, family: ModelFamily) {
        self.catalog = catalog
        self.family = family
    }

    /// The named version of the family, or the latest when `name` is nil.
    public func version(named name: String?) throws -> ModelVersion {
        try family.requireVersion(named: name)
    }

    /// Checks that `record` belongs to this lifecycle's family.
    func requireFamily(_ record: TenantRecord) throws {
        guard record.family == family.name else {
            throw TenantMigratorError.familyMismatch(tenant: record.name, recorded: record.family, configured: family.name)
        }
    }
}
