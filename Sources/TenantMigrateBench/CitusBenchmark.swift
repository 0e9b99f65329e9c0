import ArgumentParser
import Foundation
import LibPQ
import Logging
import RecipesPolicies
import TenantMigrator

/// `tenant-migrate-bench citus`: the same fleet migration on plain PostgreSQL and on a Citus
/// cluster with schema-based sharding.
///
/// N tenants at Recipes v1 with R recipes of K ingredients each are migrated v1 → v3 by
/// `migrateAll(jobs:)`: first in a database of its own on an embedded PostgreSQL server (or
/// `DATABASE_URL`), then on the Citus coordinator `--citus-url`, under a catalog and tenant names
/// of its own that are dropped at the end. Both servers run with fsync, synchronous_commit and
/// full_page_writes off (scripts/citus-cluster.sh sets them so). It prints both times; on one
/// machine Citus is slower, since every statement on a tenant's table travels from the
/// coordinator to a worker and every transaction commits in two phases. `--log-slow-statements`
/// logs the plain database's statements (the Citus coordinator's settings are its own).
struct CitusBenchmark: AsyncParsableCommand, TenantContentsDefaults {
    static let configuration = CommandConfiguration(
        commandName: "citus",
        abstract: "Time migrateAll over a fleet of tenants (v1 → v3) on plain PostgreSQL and on a Citus cluster."
    )

    @Option(help: "The Citus coordinator (scripts/citus-cluster.sh start prints it; default TEST_CITUS_URL).")
    var citusURL: String?

    @Option(help: "Tenants.")
    var tenants = 200

    @OptionGroup var contents: TenantContents<Self>

    @Option(name: [.short, .long], help: "Connections used at once.")
    var jobs = 2

    @OptionGroup var family: FamilyOptions

    @OptionGroup var database: DatabaseOptions

    static let recipesPerTenant = 20

    func run() async throws {
        guard let citus = citusURL ?? ProcessInfo.processInfo.environment["TEST_CITUS_URL"], !citus.isEmpty else {
            throw ValidationError("give --citus-url (scripts/citus-cluster.sh start prints it) or set TEST_CITUS_URL")
        }
        guard tenants > 0, contents.recipes > 0, contents.ingredients > 0, jobs > 0 else { throw ValidationError("counts and --jobs must be positive") }
        let logger = quietLogger()

        let database = try self.database.open("tm_bench_citus_plain", kind: "citus", durability: .fast, logger: logger)
        defer { database.close() }
        let plain = try await measureFleet(label: "plain PostgreSQL", conninfo: database.conninfo, catalog: TenantCatalog(), prefix: "p_", logger: logger)

        let tag = String(UInt32.random(in: .min ... .max), radix: 36)
        let catalog = TenantCatalog(schema: "tm_bench_" + tag)
        let prefix = "b\(tag)_"
        let cleanup = try Connection(citus, logger: logger)
        defer { Self.dropFleet(prefix: prefix, catalog: catalog, on: cleanup) }
        let distributed = try await measureFleet(label: "Citus", conninfo: citus, catalog: catalog, prefix: prefix, logger: logger)

        print("""

            == citus: migrateAll v1 → v3 over \(format(count: tenants)) tenants (\(contents.recipes) recipes × \(contents.ingredients) ingredients each, jobs \(jobs))
            plain PostgreSQL: \(format(plain.migrate)) (\(String(format: "%.1f", plain.migrate.inSeconds * 1000 / Double(tenants))) ms per tenant); \
            created in \(format(plain.create))
            Citus:            \(format(distributed.migrate)) (\(String(format: "%.1f", distributed.migrate.inSeconds * 1000 / Double(tenants))) ms per tenant); \
            created in \(format(distributed.create)); \(distributed.placement)
            Citus / plain:    \(String(format: "%.2f", distributed.migrate.inSeconds / plain.migrate.inSeconds))× for migrateAll, \
            \(String(format: "%.2f", distributed.create.inSeconds / plain.create.inSeconds))× for createTenants
            """)
    }

    /// Creates the fleet at v1, fills it, and times `migrateAll` to v3.
    private func measureFleet(
        label: String, conninfo: String, catalog: TenantCatalog, prefix: String, logger: Logger
    ) async throws -> (create: Duration, migrate: Duration, placement: String) {
        let migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: family.url,
                                          policies: RecipesPolicies.registry, catalog: catalog, logger: logger)
        let connection = try Connection(conninfo, logger: logger)
        print("\(label): " + (try FleetBench.serverDescription(connection)))
        let names = FleetBench.names(prefix, tenants)
        let clock = ContinuousClock()
        let createStart = clock.now
        let created = try await migrator.createTenants(names, version: "v1", jobs: jobs)
        let create = clock.now - createStart
        guard created.migrated == tenants else {
            throw BenchError("\(label): created \(created.migrated) of \(tenants) tenants: \(created.entries.first { $0.error != nil }?.error ?? "")")
        }
        for name in names {
            let index = Int(name.split(separator: "_").last!)!
            try connection.pipeline(contents.loadStatements(schema: "tenant_" + name, index: index, quoting: connection)
                .map { Statement(unsafeSQL: $0) })
        }
        let start = clock.now
        let report = try await migrator.migrateAll(jobs: jobs)
        let migrate = clock.now - start
        guard report.migrated == tenants, report.succeeded else {
            throw BenchError("\(label): \(report.migrated) migrated, \(report.failed) failed: \(report.entries.first { $0.error != nil }?.error ?? "")")
        }
        var placement = "not distributed"
        if let citus = try CitusPlacement.read(on: connection) {
            let mine = names.compactMap { citus.nodeBySchema["tenant_" + $0] }
            let perNode = Dictionary(grouping: mine, by: { $0 }).mapValues(\.count).sorted { $0.key < $1.key }
            placement = "\(citus.workers) workers; tenants per node: " + perNode.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        print("\(label): created \(format(count: tenants)) tenants in \(format(create)), migrated v1 → v3 in \(format(migrate)); \(placement)")
        return (create, migrate, placement)
    }

    /// Drops the benchmark's tenant schemas and catalog on the Citus database.
    private static func dropFleet(prefix: String, catalog: TenantCatalog, on connection: Connection) {
        let schemas = (try? connection.execute("SELECT nspname::text FROM pg_catalog.pg_namespace WHERE starts_with(nspname, $1)", ["tenant_" + prefix])
            .map { try $0.decode(String.self, at: 0) }) ?? []
        for schema in schemas + [catalog.schema] {
            _ = try? connection.execute(unsafeSQL: "DROP SCHEMA IF EXISTS \(connection.quoteIdentifier(schema)) CASCADE")
        }
    }
}
