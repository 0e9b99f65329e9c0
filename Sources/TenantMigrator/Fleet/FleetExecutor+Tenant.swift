import EntityModel
import Foundation
import LibPQ
import MigrationEngine

/// One tenant of a fleet run: its move, turned into a report line whatever happens.
extension FleetExecutor {
    /// One tenant's report line, and its failure when the connection died before it could be recorded.
    struct TenantLine: Sendable {
        var entry: FleetReport.Entry
        var unrecorded: TenantMigrationError?
    }

    /// The first version among `records` whose model file changed since its tenants reached it.
    static func changedModel(_ records: [TenantRecord], family: ModelFamily) -> TenantMigratorError? {
        let changed = records.filter { record in
            family.version(named: record.version).map { $0.versionHash != record.versionHash } ?? false
        }
        guard let version = changed.first?.version else { return nil }
        return .modelChanged(
            version: version, file: family.versionFile(version), tenants: changed.filter { $0.version == version }.map(\.name)
        )
    }

    /// One tenant, turned into a report line whatever happens.
    static func migrate(
        _ record: TenantRecord, _ request: MigrationRequest, executor: TenantExecutor, control: FleetControl, on connection: Connection
    ) -> TenantLine {
        let target = request.target ?? executor.family.latestVersion.name
        let clock = ContinuousClock()
        let started = clock.now
        func milliseconds() -> Double { (clock.now - started).inMilliseconds }
        var executor = executor
        executor.control = control
        do {
            // Pinned since the fleet's query: still left alone.
            let result = try executor.migrate(record.name, request, expecting: record, on: connection)
            return TenantLine(entry: FleetReport.Entry(result: result))
        } catch let error as TenantMigrationError where error.isInterruption {
            return TenantLine(entry: .init(tenant: record.name.rawValue, outcome: .notStarted, fromVersion: record.version,
                                          toVersion: target, milliseconds: milliseconds()))
        } catch let error as TenantMigrationError {
            return TenantLine(
                entry: .init(tenant: record.name.rawValue, outcome: .failed, fromVersion: error.fromVersion, toVersion: error.toVersion,
                             milliseconds: milliseconds(), error: error.description, sqlState: error.sqlState?.rawValue),
                unrecorded: error.isRecorded || !error.isRecordable ? nil : error
            )
        } catch {
            // Failed before the tenant's record was read (a lost connection, say): record it against
            // the version the fleet query found, once a connection is back.
            let failure = TenantMigrationError(
                tenant: record.name, fromVersion: record.version, toVersion: target, reason: .stepFailed,
                underlying: error, attempts: 1, milliseconds: milliseconds()
            )
            return TenantLine(
                entry: .init(tenant: record.name.rawValue, outcome: .failed, fromVersion: record.version, toVersion: target,
                             milliseconds: milliseconds(), error: "\(error)", sqlState: SQLState.of(error)?.rawValue),
                unrecorded: connection.isHealthy ? nil : failure
            )
        }
    }
}
