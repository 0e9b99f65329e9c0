import MigrationEngine
import TenantMigrator

extension TenantMigrationResult {
    /// The result's line on stdout: what happened, or in a trial what would have.
    func printLine(mode: MigrationRunMode = .apply) {
        let style = TextStyle.output
        let rows = "\(statistics.rowsAffected) row\(statistics.rowsAffected == 1 ? "" : "s")"
        let time = Duration.milliseconds(milliseconds).commandLineText
        if mode.isTrial, outcome == .migrated {
            Console.line("\(tenant): \(mode == .rehearse ? "rehearsal" : "dry run"): \(style.green("would migrate")) \(fromVersion) → \(toVersion) "
                + "(\(rows), \(time)); rolled back, nothing changed")
            return
        }
        switch outcome {
        case .alreadyCurrent:
            Console.line("\(tenant): already at \(toVersion)")
        case .migrated:
            Console.line("\(tenant): \(style.green("migrated")) \(fromVersion) → \(toVersion) in \(time) "
                + "(\(statistics.statements) statement\(statistics.statements == 1 ? "" : "s"), \(rows), "
                + "\(attempts) attempt\(attempts == 1 ? "" : "s"))")
            if let online { Console.line("\(tenant): \(online.summary)") }
        case .failed:
            Console.line("\(tenant): \(style.red("FAILED")) \(fromVersion) → \(toVersion): \(error ?? "unknown error")")
        case .pinned:
            Console.line("\(tenant): \(style.yellow("pinned")), left at \(fromVersion) (`migrate --tenant \(tenant)` alone moves it, `tenant unpin \(tenant)` releases it)")
        }
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
