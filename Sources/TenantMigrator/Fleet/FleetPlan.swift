/// What a fleet run does with each selected tenant, decided before any tenant's connection opens:
/// a value made from where the tenants stand (``TenantRecord/standing(toward:)``), with no server.
///
/// ``FleetExecutor`` makes it from the catalog's one answer (which names the tenants at the target
/// only when asked, and counts them otherwise); the boot service makes it from every record
/// (``init(records:target:selection:)``). Both then act on the same four groups.
public struct FleetPlan: Sendable, Hashable {
    /// The version the tenants move to.
    public var target: String
    /// Tenants at the target, by name: nothing to do. Empty when the plan only counts them.
    public var current: [String]
    /// How many tenants are at the target (named in ``current`` or not).
    public var currentCount: Int
    /// Tenants elsewhere but pinned (a rollback, `tenant pin`): left where they are.
    public var pinned: [TenantRecord]
    /// Names the selection gives that no tenant of the family has.
    public var unknown: [String]
    /// The tenants to move, in name order, at most the selection's limit.
    public var pending: [TenantRecord]

    /// Classifies the selected tenants among `records` (every tenant of a family).
    public init(records: [TenantRecord], target: String, selection: TenantSelection = .all) {
        let selected = records.filter { selection.includes($0.name) }.sorted { $0.name.rawValue < $1.name.rawValue }
        let current = selected.filter { $0.standing(toward: target) == .current }.map(\.name.rawValue)
        self.init(target: target, elsewhere: selected.filter { $0.standing(toward: target) != .current },
                  currentCount: current.count, currentNames: current, selection: selection, listingCurrent: true)
    }

    /// Classifies the catalog's answer: the selected tenants not at `target` (pinned ones
    /// included), how many are at it, and their names when the catalog was asked for them (which
    /// ``current`` holds only when `listingCurrent`: the names may have been read only to find the
    /// unknown ones).
    init(target: String, elsewhere: [TenantRecord], currentCount: Int, currentNames: [String]?, selection: TenantSelection, listingCurrent: Bool) {
        self.target = target
        self.currentCount = currentCount
        current = listingCurrent ? currentNames ?? [] : []
        let isPinned = { (record: TenantRecord) in if case .pinned = record.standing(toward: target) { true } else { false } }
        pinned = elsewhere.filter(isPinned)
        let moving = elsewhere.filter { $0.standing(toward: target) != .current && !isPinned($0) }
        pending = selection.limit.map { Array(moving.prefix($0)) } ?? moving
        // Without the names of the current tenants, a named one cannot be told from an unknown one:
        // the catalog is asked for them whenever the selection names tenants.
        let found = Set(elsewhere.map(\.name.rawValue) + (currentNames ?? []))
        unknown = currentNames == nil ? [] : selection.names.filter { !found.contains($0) }
    }

    /// How many tenants at the target the plan counts without naming them.
    public var unlistedCurrent: Int { currentCount - current.count }

    /// The report's lines for the tenants the run does not move: those at the target (`skipped`,
    /// when named), the pinned ones, and the unknown names (`failed`), by name.
    public func settledEntries(family: String) -> [FleetReport.Entry] {
        let skipped = current.map { FleetReport.Entry(tenant: $0, outcome: .skipped, fromVersion: target, toVersion: target, milliseconds: 0) }
        let pinned = pinned.map {
            FleetReport.Entry(tenant: $0.name.rawValue, outcome: .pinned, fromVersion: $0.version, toVersion: target, milliseconds: 0)
        }
        let unknown = unknown.map {
            FleetReport.Entry(tenant: $0, outcome: .failed, fromVersion: "", toVersion: target, milliseconds: 0,
                              error: "no tenant named \($0) in family \(family)")
        }
        return (skipped + pinned + unknown).sorted { $0.tenant < $1.tenant }
    }
}
