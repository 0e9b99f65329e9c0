/// Which tenants a fleet run takes, and how many at once: beside the ``MigrationRequest`` that
/// says what each of them is asked. Together they are everything `migrate --all` is told.
public struct FleetRequest: Sendable, Hashable {
    /// The tenants: all, named, matching a pattern, at most a limit of those that need work.
    public var selection: TenantSelection
    /// Connections used at once.
    public var jobs: Int
    /// Stop taking tenants after the first failure.
    public var failFast: Bool
    /// Whether the report lists each tenant already at the target (an entry `skipped` each), or
    /// only counts them (``FleetReport/unlistedCurrent``): a run over a large fleet with nothing to
    /// do then reads and holds nothing per tenant.
    public var listsCurrentTenants: Bool

    public init(selection: TenantSelection = .all, jobs: Int = 4, failFast: Bool = false, listsCurrentTenants: Bool = true) {
        self.selection = selection
        self.jobs = jobs
        self.failFast = failFast
        self.listsCurrentTenants = listsCurrentTenants
    }
}
