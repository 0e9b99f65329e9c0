import TenantMigrator

/// A fleet operation as a command runs it: Ctrl-C handling and a progress display on stderr, then
/// its report (``FleetRunReport``), which the command prints.
struct FleetRun {
    /// The report's word for a tenant that moved: `migrated`, `rolled back`, `created`.
    let verb: String
    /// What the progress line says is going on: `migrating`, `rolling back`, `creating`.
    let activity: String
    let mode: MigrationRunMode
    let console: Console
    /// What the summary line adds about the database (the embedded server, when it is the one).
    var databaseNote = ""
    /// `migrate` or `rollback` (its JSON is a ``MoveDocument``); nil for `tenant create`.
    var move: MigrationRequest.Operation? = nil

    func run(_ operation: (FleetControl, @escaping @Sendable (FleetProgress) -> Void) async throws -> FleetReport) async throws -> FleetRunReport {
        let control = FleetControl()
        let interrupts = InterruptHandler(control: control, console: console)
        let activity = mode.isTrial ? (mode == .rehearse ? "rehearsing" : "dry run") : self.activity
        let report = try await ProgressDisplay(activity: activity, console: console).showing { progress in
            try await operation(control, progress)
        }
        withExtendedLifetime(interrupts) {}
        return FleetRunReport(report: report, verb: verb, databaseNote: databaseNote, operation: move)
    }
}
