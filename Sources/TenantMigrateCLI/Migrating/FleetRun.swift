import TenantMigrator

/// A fleet operation as a command runs it: Ctrl-C handling, a progress display on stderr, then
/// its report on stdout (and the exit code).
struct FleetRun {
    /// The report's word for a tenant that moved: `migrated`, `rolled back`, `created`.
    let verb: String
    /// What the progress line says is going on: `migrating`, `rolling back`, `creating`.
    let activity: String
    let mode: MigrationRunMode
    let json: Bool
    let console: Console
    /// What the summary line adds about the database (the embedded server, when it is the one).
    var databaseNote = ""
    /// `migrate` or `rollback` (its JSON is a ``MoveDocument``); nil for `tenant create`.
    var move: MigrationRequest.Operation? = nil

    func run(_ operation: (FleetControl, @escaping @Sendable (FleetProgress) -> Void) async throws -> FleetReport) async throws {
        let control = FleetControl()
        let interrupts = InterruptHandler(control: control, console: console)
        let activity = mode.isTrial ? (mode == .rehearse ? "rehearsing" : "dry run") : self.activity
        let report = try await ProgressDisplay(activity: activity, console: console).showing { progress in
            try await operation(control, progress)
        }
        withExtendedLifetime(interrupts) {}
        try report.print(json: json, verb: verb, databaseNote: databaseNote, operation: move)
    }
}
