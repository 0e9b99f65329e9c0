import ArgumentParser
import TenantMigrator

/// `--tenant NAME`: the option of the commands that look at every tenant, or at one (`archive list`,
/// `archive prune`, `online cleanup`).
struct TenantFilterOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Only this tenant.", valueName: "name")) var tenant: String?

    func validate() throws {
        if let tenant { _ = try TenantName(tenant) }
    }

    /// The tenant named, once `migrator`'s family is known to have it; nil for every tenant.
    ///
    /// - Throws: ``TenantMigratorError/unknownTenant(_:)``: a misspelt name is an error, not an
    ///   empty report.
    func known(in migrator: TenantMigrator) async throws -> String? {
        guard let tenant else { return nil }
        guard try await migrator.tenant(named: tenant) != nil else { throw TenantMigratorError.unknownTenant(try TenantName(tenant)) }
        return tenant
    }
}
