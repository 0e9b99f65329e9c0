import Foundation
import LibPQ
import Logging

extension TenantLifecycle {
    /// Creates many tenants at `version` over `jobs` connections at once, each in its own
    /// transaction. A failure (a name that exists, say) is reported and the others go on.
    ///
    /// - Returns: one report line per name, in the order given: `migrated` for created tenants
    ///   (their `toVersion` is the version), `failed` with the error otherwise.
    public func createMany(
        _ names: [TenantName], version versionName: String? = nil, access: TenantAccess = TenantAccess(), jobs: Int = 4,
        connectionString: String, logger: Logger, control: FleetControl = FleetControl(),
        progress: (@Sendable (FleetProgress) -> Void)? = nil
    ) async throws -> FleetReport {
        try await createMany(names, version: versionName, access: access, jobs: jobs,
                             connections: .dedicated(MigratorSession(connectionString: connectionString, logger: logger)),
                             control: control, progress: progress)
    }

    /// ``createMany(_:version:access:jobs:connectionString:logger:control:progress:)`` with the
    /// connections of `connections` (a facade's pool).
    func createMany(
        _ names: [TenantName], version versionName: String?, access: TenantAccess, jobs: Int, connections source: ConnectionSource,
        control: FleetControl, progress: (@Sendable (FleetProgress) -> Void)?
    ) async throws -> FleetReport {
        let version = try version(named: versionName)
        let startedAt = Date()
        let clock = ContinuousClock()
        let started = clock.now
        let reconnectTimeout = Duration.seconds(60)
        let first = try await source.take(reconnectTimeout)
        let catalog = self.catalog
        do {
            try await first.withConnection { try catalog.install(on: $0) }
        } catch {
            await source.giveBack(first, true)
            throw error
        }
        let tracker = ProgressTracker(total: names.count, callback: progress)
        let lifecycle = self
        let fanOut = FanOut(jobs: jobs, source: source, reconnectTimeout: reconnectTimeout, control: control)
        let outputs = try await fanOut.run(
            names, first: first,
            work: { name, connection -> FleetReport.Entry in
                let began = ContinuousClock.now
                do {
                    try lifecycle.create(name, version: version.name, access: access, on: connection)
                    return .init(tenant: name.rawValue, outcome: .migrated, fromVersion: "", toVersion: version.name, milliseconds: Duration.since(began).inMilliseconds)
                } catch {
                    return .init(tenant: name.rawValue, outcome: .failed, fromVersion: "", toVersion: version.name, milliseconds: Duration.since(began).inMilliseconds,
                                 error: "\(error)", sqlState: (error as? PQError)?.sqlState?.rawValue)
                }
            },
            onDone: { entry in await tracker.record(failed: entry.outcome == .failed) }
        )
        let entries = zip(names, outputs).map { name, output in
            output ?? .init(tenant: name.rawValue, outcome: .notStarted, fromVersion: "", toVersion: version.name, milliseconds: 0)
        }
        return FleetReport(family: family.name, target: version.name, startedAt: startedAt, milliseconds: Duration.since(started).inMilliseconds,
                           interrupted: control.isStopped, entries: entries)
    }
}
