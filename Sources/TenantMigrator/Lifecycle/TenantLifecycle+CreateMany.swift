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
        let version = try version(named: versionName)
        let startedAt = Date()
        let clock = ContinuousClock()
        let started = clock.now
        let session = MigratorSession(connectionString: connectionString, logger: logger)
        let first = try await session.connect()
        let catalog = self.catalog
        try await first.withConnection { try catalog.install(on: $0) }
        let tracker = ProgressTracker(total: names.count, callback: progress)
        let lifecycle = self
        let outputs = try await fanOut(
            names, jobs: jobs, session: session, control: control, firstConnection: first,
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
