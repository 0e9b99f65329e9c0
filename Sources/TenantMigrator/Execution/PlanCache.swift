import LibPQ
import MigrationEngine

/// The plans of one fleet run, made once per pair of versions rather than once per tenant: every
/// tenant at the same version gets the same compiled plan (a compiled step names no schema), and the
/// same answer to what it loses; and what the run learns as its tenants run those plans (``RunMemory``),
/// which the plans themselves do not hold.
///
/// A fleet run (``FleetExecutor``) gives its runner one; a runner without one plans each tenant
/// afresh. Planning errors are not kept: each tenant that meets one reports it.
final class PlanCache: Sendable {
    /// A plan, and what it loses (with the run's archive setting).
    struct Entry: Sendable {
        let plan: MigrationPlan
        let lostChanges: [DestructiveChange]
    }

    private let entries = Memo<[String], Entry>()
    /// What the run learns as its tenants run the plans: handed to each tenant's executor.
    let memory = RunMemory()

    /// The entry for `source` → `destination`, made by `make` the first time.
    func entry(from source: String, to destination: String, _ make: () throws -> Entry) rethrows -> Entry {
        try entries.value(for: [source, destination], make: make)
    }
}

extension TenantExecutor {
    /// The plan from `source` to `destination` and what it loses, from the fleet run's cache when
    /// the runner has one.
    func checkedPlan(from source: String, to destination: String) throws -> PlanCache.Entry {
        func make() throws -> PlanCache.Entry {
            let plan = try planner.plan(from: source, to: destination)
            return PlanCache.Entry(plan: plan, lostChanges: plan.lostChanges(archiving: settings.archives))
        }
        guard let plans else { return try make() }
        return try plans.entry(from: source, to: destination, make)
    }
}
