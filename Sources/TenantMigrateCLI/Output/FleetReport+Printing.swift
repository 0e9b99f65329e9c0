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
                Swift.print(String(format: "%@ to %@ %@ in %.1f s, all rolled back (nothing was changed): %d would migrate, %d already there, %d would fail%@%@",
                                   mode == .rehearse ? "Rehearsed the way there and back" : "Dry run", family, target, milliseconds / 1000,
                                   migrated, skipped, failed, pinnedNote, notStarted > 0 ? ", \(notStarted) not started" : ""))
                if failed > 0 || notStarted > 0 || interrupted { throw ExitCode(failed == 0 && interrupted ? 130 : 1) }
                return
            }
            // Pinned tenants are listed too: they were left behind on purpose, but not silently.
            let problems = entries.filter { $0.outcome == .failed || $0.outcome == .notStarted || $0.outcome == .pinned }
            if !problems.isEmpty {
                TextTable.print(
                    ["TENANT", "OUTCOME", "FROM", "TO", "MS", "ERROR"],
                    problems.map { [$0.tenant, $0.outcome.rawValue, $0.fromVersion, $0.toVersion, String(Int($0.milliseconds)),
                                    $0.outcome == .pinned ? "pinned: left at \($0.fromVersion)" : ($0.error ?? "").replacingOccurrences(of: "\n", with: " ").prefix(160).description] }
                )
            }
            let creating = verb == "created"
            Swift.print(String(format: "%@ tenants %@ %@ %@ in %.1f s: %d %@, %d %@, %d failed%@%@",
                               creating ? "Created" : "Moved", creating ? "at" : "to", family, target, milliseconds / 1000,
                               migrated, verb, skipped, creating ? "skipped" : "already there",
                               failed, pinnedNote, notStarted > 0 ? ", \(notStarted) not started" : ""))
            if pinned > 0 {
                Swift.print("Pinned tenants stay where they are: `migrate --tenant NAME` moves one (and clears its pin), `tenant unpin NAME` releases it.")
            }
            if interrupted { Swift.print("The run was interrupted; run the same command again to finish.") }
        }
        // 130 (as for SIGINT) only for a run stopped without failures; a failure, --fail-fast's
        // included, is 1. Pinned tenants are not failures.
        if failed > 0 || notStarted > 0 || interrupted { throw ExitCode(failed == 0 && interrupted ? 130 : 1) }
    }

    /// `, N pinned` when tenants were left alone because they are pinned.
    private var pinnedNote: String { pinned > 0 ? ", \(pinned) pinned" : "" }
}
