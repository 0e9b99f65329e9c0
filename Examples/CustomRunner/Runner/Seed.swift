import ArgumentParser
import TenantMigrateCLI

/// `recipes-runner seed acme`: a command of the runner's own, with the same global options.
struct Seed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create a tenant and list every tenant.")

    @OptionGroup var options: RunnerOptions<RecipesRunner>
    @Argument var tenant: String

    func run() async throws {
        try await options.withMigrator { migrator in
            _ = try await migrator.createTenant(tenant)
            TextTable.print(["TENANT", "VERSION"], try await migrator.tenants().map { [$0.name.rawValue, $0.version] })
        }
    }
}
