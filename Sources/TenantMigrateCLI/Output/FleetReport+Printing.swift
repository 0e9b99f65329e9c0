import ArgumentParser
import Foundation
import TenantMigrator

/// What a fleet command prints (`migrate`, `rollback` with --all, --match or --limit, `tenant create`
/// of several tenants): the summary table, or the whole report as JSON (a ``MoveDocument`` for a
/// move); then the exit code: 1 when a tenant failed, 130 when the run was interrupted (and none
/// failed).
struct FleetRunReport: CommandReport {
    let report: FleetReport
    /// The report's word for a tenant that moved: `migrated`, `rolled back`, `created`.
    let verb: String
    /// What the summary line adds about the database (the embedded server).
    var databaseNote = ""
    /// `migrate` or `rollback`, whose JSON is a ``MoveDocument``; nil for `tenant create`.
    var operation: MigrationRequest.Operation? = nil

    func encode(to encoder: any Encoder) throws {
        if let operation { try MoveDocument(report, operation: operation).encode(to: encoder) } else { try report.encode(to: encoder) }
    }

    func printText() {
        report.mode.isTrial ? report.printTrial(verb: verb, databaseNote: databaseNote) : report.printRun(verb: verb, databaseNote: databaseNote)
    }

    // 130 (as for SIGINT) only for a run stopped without failures; a failure, --fail-fast's
    // included, is 1. Pinned tenants are not failures.
    var failure: (any Error)? {
        guard report.failed > 0 || report.notStarted > 0 || report.interrupted else { return nil }
        return ExitCode(report.failed == 0 && report.interrupted ? 130 : 1)
    }
}

extension FleetReport {
    /// A trial reports every tenant: what it would do, with its rows and time, or why it would fail.
    fileprivate func printTrial(verb: String, databaseNote: String) {
        let style = TextStyle.output
        // The table's heading says WOULD: `migrate`, `roll back`, or `rehearse` (there and back).
        let movedWord = mode == .rehearse ? "rehearse" : (verb == "rolled back" ? "roll back" : "migrate")
        TextTable.print(
            ["TENANT", "WOULD", "FROM", "TO", "ROWS", "TIME", "SQLSTATE", "ERROR"],
            entries.map {
                [$0.tenant, $0.outcome == .migrated ? movedWord : ($0.outcome == .failed ? "FAIL" : $0.outcome.rawValue),
                 $0.fromVersion, $0.toVersion, $0.rowsAffected.map(String.init) ?? "", Duration.milliseconds($0.milliseconds).commandLineText,
                 $0.sqlState ?? "", Self.cause(of: $0.error)]
            },
            styles: [1: { $0 == "FAIL" ? style.red($0) : ($0 == movedWord ? style.green($0) : $0) }]
        )
        let trial = mode == .rehearse ? "Rehearsal of the way there and back" : "Dry run"
        let moved = mode == .rehearse
            ? "\(migrated) rehearsed" + (migrated > 0 ? rehearsalVerdict : "") : "\(migrated) would \(verb == "rolled back" ? "roll back" : "migrate")"
        Console.line("\(trial) to \(family) \(target) in \(Duration.milliseconds(milliseconds).commandLineText), all rolled back "
            + "(nothing was changed): \(moved), \(skipped) already there, \(failed) would fail"
            + pinnedNote + (notStarted > 0 ? ", \(notStarted) not started" : "") + databaseNote)
    }

    fileprivate func printRun(verb: String, databaseNote: String) {
        let style = TextStyle.output
        // Pinned tenants are listed too: they were left behind on purpose, but not silently.
        let problems = entries.filter { $0.outcome == .failed || $0.outcome == .notStarted || $0.outcome == .pinned }
        if !problems.isEmpty {
            TextTable.print(
                ["TENANT", "OUTCOME", "FROM", "TO", "TIME", "ERROR"],
                problems.map {
                    [$0.tenant, $0.outcome.rawValue, $0.fromVersion, $0.toVersion, Duration.milliseconds($0.milliseconds).commandLineText,
                     $0.outcome == .pinned ? "pinned: left at \($0.fromVersion)" : Self.cause(of: $0.error)]
                },
                styles: [1: { $0 == "failed" ? style.red($0) : style.yellow($0) }]
            )
        }
        let online = entries.filter { $0.online != nil }
        if !online.isEmpty {
            TextTable.print(
                ["TENANT", "MODE", "ROWS COPIED", "CHANGES CAUGHT UP", "WRITES WAITED", "READS WAITED"],
                online.map { entry in
                    let progress = entry.online!
                    let ran = progress.mode != "offline" && progress.mode != "catalog-only"
                    return [entry.tenant, progress.mode, ran ? String(progress.rowsCopied) : "", ran ? String(progress.changesCaughtUp) : "",
                            ran ? Duration.milliseconds(progress.writesBlockedMilliseconds).commandLineText : "",
                            ran ? Duration.milliseconds(progress.readsBlockedMilliseconds).commandLineText : ""]
                }
            )
        }
        let creating = verb == "created"
        let failures = failed > 0 ? style.red("\(failed) failed") : "0 failed"
        Console.line("\(creating ? "Created" : "Moved") tenants \(creating ? "at" : "to") \(family) \(target) "
            + "in \(Duration.milliseconds(milliseconds).commandLineText): \(migrated) \(verb), \(skipped) \(creating ? "skipped" : "already there"), "
            + failures + pinnedNote + (notStarted > 0 ? ", \(notStarted) not started" : "") + databaseNote)
        let restored = entries.reduce(0) { $0 + ($1.restoredEntries ?? 0) }
        if restored > 0 {
            Console.line("Given back from the tenants' archives: \(restored) archived value\(restored == 1 ? "" : "s") and rows "
                + "(compare-and-restore: where the rows still held what the earlier way left).")
        }
        if pinned > 0 {
            Console.line("Pinned tenants stay where they are: `migrate --tenant NAME` moves one (and clears its pin), `tenant unpin NAME` releases it.")
        }
        if interrupted { Console.line("The run was interrupted; run the same command again to finish.") }
    }

    /// `, N pinned` when tenants were left alone because they are pinned.
    private var pinnedNote: String { pinned > 0 ? ", \(pinned) pinned" : "" }

    /// An error on one table line, cut at a word before 160 characters.
    private static func oneLine(_ error: String?) -> String {
        TextTable.cut(error ?? "", at: 160)
    }

    /// In a report's table, whose other columns say already which tenant failed (or would fail)
    /// from which version to which: the cause alone, not the library's whole account of a failed
    /// and rolled-back migration (`--json` and `history` keep it); its advice in the command line's words.
    private static func cause(of error: String?) -> String {
        guard let error = error.map(CommandLineMessage.inCommandLineWords) else { return "" }
        guard let range = error.range(of: ". Cause: ") else { return oneLine(error) }
        return oneLine(String(error[range.upperBound...]))
    }
}

extension FleetReport {
    /// What the rehearsals' ways back showed, in the summary line: every value back, or how many
    /// archived values the steps do not give back (the app's changes superseded them, or no row is
    /// what a link pointed at), which stay in the archive (each tenant's in `--json`).
    var rehearsalVerdict: String {
        let kept = entries.reduce(0) { total, entry in
            total + (entry.archive?.findings ?? []).filter { $0.kind != .proofWithheld }.reduce(0) { $0 + $1.rows }
        }
        guard kept > 0 else { return " (the way back gave every value back)" }
        return " (the way back gave back every value the runs moved; \(kept) archived value\(kept == 1 ? "" : "s") the steps do not give back "
            + "stay\(kept == 1 ? "s" : "") in the archive, by tenant in --json)"
    }
}
