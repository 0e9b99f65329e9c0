import ArgumentParser
import Foundation
import TenantMigrator

extension FleetReport {
    /// The summary table on stdout (or the whole report as JSON), then the exit code: 1 when a
    /// tenant failed, 130 when the run was interrupted (and none failed).
    func print(json: Bool, verb: String) throws {
        if json {
            try Console.printJSON(self)
        } else {
            if mode.isTrial {
                // A trial reports every tenant: what it would do, with its rows and time, or why it would fail.
                TextTable.print(
                    ["TENANT", "WOULD", "FROM", "TO", "ROWS", "MS", "SQLSTATE", "ERROR"],
                    entries.map { [$0.tenant, $0.outcome == .migrated ? "migrate" : ($0.outcome == .failed ? "FAIL" : $0.outcome.rawValue),
                                   $0.fromVersion, $0.toVersion, $0.rowsAffected.map(String.init) ?? "", String(Int($0.milliseconds)),
                                   $0.sqlState ?? "", ($0.error ?? "").replacingOccurrences(of: "\n", with: " ").prefix(160).description] }
                )
                Swift.print(String(format: "%@ to %@ %@ in %.1f s, all rolled back (nothing was changed): %d would migrate, %d already there, %d would fail%@",
                                   mode == .rehearse ? "Rehearsed the way there and back" : "Dry run", family, target, milliseconds / 1000,
                                   migrated, skipped, failed, notStarted > 0 ? ", \(notStarted) not started" : ""))
                if failed > 0 || notStarted > 0 || interrupted { throw ExitCode(failed == 0 && interrupted ? 130 : 1) }
                return
            }
            let problems = entries.filter { $0.outcome == .failed || $0.outcome == .notStarted }
            if !problems.isEmpty {
                TextTable.print(
                    ["TENANT", "OUTCOME", "FROM", "TO", "MS", "ERROR"],
                    problems.map { [$0.tenant, $0.outcome.rawValue, $0.fromVersion, $0.toVersion, String(Int($0.milliseconds)),
                                    ($0.error ?? "").replacingOccurrences(of: "\n", with: " ").prefix(160).description] }
                )
            }
            let creating = verb == "created"
            Swift.print(String(format: "%@ tenants %@ %@ %@ in %.1f s: %d %@, %d %@, %d failed%@",
                               creating ? "Created" : "Moved", creating ? "at" : "to", family, target, milliseconds / 1000,
                               migrated, verb, skipped, creating ? "skipped" : "already there",
                               failed, notStarted > 0 ? ", \(notStarted) not started" : ""))
            if interrupted { Swift.print("The run was interrupted; run the same command again to finish.") }
        }
        // 130 (as for SIGINT) only for a run stopped without failures; a failure, --fail-fast's
        // included, is 1.
        if failed > 0 || notStarted > 0 || interrupted { throw ExitCode(failed == 0 && interrupted ? 130 : 1) }
    }
}
