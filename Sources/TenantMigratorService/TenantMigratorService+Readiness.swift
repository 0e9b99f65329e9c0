import TenantMigrator

extension TenantMigratorService {
    /// Whether `tenant` is known to be at the family's latest version: a dictionary lookup, cheap
    /// enough for every request (answer 503 when false).
    ///
    /// False for a tenant this service has not seen (created after the boot pass read the catalog,
    /// or before the boot pass has); use ``checkReady(tenant:)`` for those.
    public func isReady(tenant: String) -> Bool {
        board.status(of: tenant).isReady
    }

    /// Where `tenant` stands as far as this service has seen; a dictionary lookup.
    public func status(of tenant: String) -> Status {
        board.status(of: tenant)
    }

    /// Every tenant the service has seen, with its status.
    public var statuses: [String: Status] {
        board.statuses
    }

    /// The tenants seen but not ready (migrating, held, pending or failed), sorted by name.
    public var pendingTenants: [String] {
        board.statuses.filter { !$0.value.isReady }.keys.sorted()
    }

    /// What the boot pass did; nil until it has ended.
    public var bootReport: BootReport? {
        board.bootReport
    }

    /// Waits for the boot pass to end (or returns its report at once if it has) and returns its
    /// report. Only returns once ``run()`` has run the boot pass.
    public func bootCompleted() async -> BootReport {
        await board.waitForBoot()
    }

    /// Like ``isReady(tenant:)``, but a tenant the service has not seen is looked up in the
    /// catalog (one query; the answer is kept, so it costs that once per tenant). A tenant found at
    /// the latest version (one created after boot by `createTenant`) is ready; one found at an
    /// older version is scheduled for the background retries and is not ready yet.
    ///
    /// - Throws: what the catalog lookup throws (an invalid tenant name, the database unreachable).
    public func checkReady(tenant: String) async throws -> Bool {
        let known = board.status(of: tenant)
        guard known == .unknown else { return known.isReady }
        guard let record = try await migrator.tenant(named: tenant) else { return false }
        if record.standing(toward: migrator.family.latestVersion.name) == .current {
            _ = board.setIfUnknown(tenant, .ready, nextAttempt: nil)
        } else if board.setIfUnknown(tenant, .pending, nextAttempt: .now) {
            logger.info("tenant \(tenant) is at \(record.version); migrating it in the background", metadata: ["tenant": "\(tenant)"])
            alarm.ring()
        }
        return board.status(of: tenant).isReady
    }
}
