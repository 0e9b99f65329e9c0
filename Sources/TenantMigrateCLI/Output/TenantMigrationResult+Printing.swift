import MigrationEngine
import TenantMigrator

extension TenantMigrationResult {
    /// The result's line on stdout: what happened (`migrated`, `rolled back`), or in a trial what
    /// would have; a rehearsal also says that the way back gave every value back (it fails, naming
    /// the first row, when one did not come back), or, where the step leaves archived values
    /// superseded (listed below the line), that it gave back every value the run moved and which
    /// archived ones stay.
    func printLine(mode: MigrationRunMode = .apply, operation: MigrationRequest.Operation = .migrate) {
        let style = TextStyle.output
        let restored = statistics.restoredEntries
        let rows = "\(statistics.rowsAffected) row\(statistics.rowsAffected == 1 ? "" : "s")"
            + (restored > 0 ? ", \(restored) archived value\(restored == 1 ? "" : "s") given back" : "")
        let time = Duration.milliseconds(milliseconds).commandLineText
        let back = operation == .rollback
        if mode.isTrial, outcome == .migrated {
            Console.line("\(tenant): \(mode == .rehearse ? "rehearsal" : "dry run"): \(style.green(back ? "would roll back" : "would migrate")) \(fromVersion) → \(toVersion) "
                + "(\(rows), \(time)\(statistics.archiveSummary))" + (mode == .rehearse ? rehearsalVerdict : "") + "; rolled back, nothing changed")
            for line in statistics.findingLines { Console.line("\(tenant):   \(line)") }
            return
        }
        switch outcome {
        case .alreadyCurrent:
            Console.line("\(tenant): already at \(toVersion)")
        case .migrated:
            Console.line("\(tenant): \(style.green(back ? "rolled back" : "migrated")) \(fromVersion) → \(toVersion) in \(time) "
                + "(\(statistics.statements) statement\(statistics.statements == 1 ? "" : "s"), \(rows), "
                + "\(attempts) attempt\(attempts == 1 ? "" : "s"))")
            if let online { Console.line("\(tenant): \(online.summary)") }
        case .failed:
            Console.line("\(tenant): \(style.red("FAILED")) \(fromVersion) → \(toVersion): \(error.map(CommandLineMessage.inCommandLineWords) ?? "unknown error")")
        case .pinned:
            Console.line("\(tenant): \(style.yellow("pinned")), left at \(fromVersion) (`migrate --tenant \(tenant)` alone moves it, `tenant unpin \(tenant)` releases it)")
        }
    }
}

extension TenantMigrationResult {
    /// What a rehearsal's way back showed. "Every value back" alone would hide archived values the
    /// step itself does not give back (the app's changes superseded them, or no row is what a link
    /// pointed at): they stay in the archive, and the lines below name them.
    var rehearsalVerdict: String {
        let kept = statistics.findings.filter { $0.kind != .proofWithheld }.reduce(0) { $0 + $1.rows }
        guard kept > 0 else { return "; the way back gave every value back" }
        return "; the way back gave back every value the run moved, and \(kept) archived value\(kept == 1 ? "" : "s") the step does not give back stay\(kept == 1 ? "s" : "") in the archive (below)"
    }
}

extension OnlineProgress {
    /// How the tenant ran online, in one line: `online (shadow): 200 rows copied, …`.
    var summary: String {
        switch mode {
        case "offline", OnlineStepMode.Kind.catalogOnly.rawValue:
            return "ran \(mode == "offline" ? "offline" : "as one short catalog-only transaction"): \(reason)"
        default:
            return "online (\(mode)): \(rowsCopied) rows copied, \(changesCaughtUp) changes caught up in \(rounds) round\(rounds == 1 ? "" : "s"); "
                + "writes waited \(Duration.milliseconds(writesBlockedMilliseconds).commandLineText), "
                + "reads \(Duration.milliseconds(readsBlockedMilliseconds).commandLineText)"
        }
    }
}
