import ArgumentParser
import MigrationEngine
import TenantMigrator

/// `migrate` and `rollback`: a fleet run with --all, --match or --limit; otherwise each named
/// tenant in turn, a tenant named alone moving even when pinned.
struct TenantMove {
    /// `.migrate` or `.rollback`.
    let operation: MigrationRequest.Operation
    let target: String?
    let tenants: [String]
    let migration: MigrationOptions
    let fleet: FleetOptions

    /// The named tenants are valid, or the fleet options select them.
    static func validate(_ tenants: [String], fleet: FleetOptions, operation: MigrationRequest.Operation) throws {
        guard !tenants.isEmpty || fleet.isFleet else {
            throw ValidationError("name the tenants to \(operation == .migrate ? "migrate" : "roll back") with --tenant (repeatable), or use --all, --match or --limit")
        }
        _ = try tenants.map(TenantName.init)
    }

    /// Moves the tenants on the database and models `options` name, for a report in `format`: JSON
    /// lists the tenants already there too; text prints each named tenant's line as it ends.
    func run<Runner>(_ options: RunnerOptions<Runner>, for format: OutputFormat) async throws -> MoveReport<NamedMoveReport> {
        try await options.withMigrator { migrator, database in
            var migrator = migrator
            let console = options.console
            migration.configure(&migrator)
            let up = operation == .migrate
            // A rollback without --to goes back to the first version.
            let target = self.target ?? (up ? nil : migrator.family.versionNames[0])
            let request = MigrationRequest(operation, to: target, allowDestructive: migration.allowDestructive, mode: migration.mode, online: migration.onlineMode)
            if fleet.isFleet {
                // The summary counts the tenants already there; only --json and trials list each one.
                let fleetRequest = FleetRequest(selection: fleet.selection(names: tenants), jobs: fleet.jobs, failFast: fleet.failFast,
                                                listsCurrentTenants: format == .json || request.mode.isTrial)
                let run = FleetRun(verb: up ? "migrated" : "rolled back", activity: up ? "migrating" : "rolling back", mode: request.mode,
                                   console: console, databaseNote: database.summaryNote, move: operation)
                return .fleet(try await run.run { control, progress in
                    try await migrator.moveAll(request, fleet: fleetRequest, control: control, progress: progress)
                })
            }
            // One tenant named alone is the operator's decision to move it; a list is a selection.
            var named = request
            named.pins = tenants.count == 1 ? .override : .respect
            let each = named
            let results = TenantResults(mode: request.mode, operation: operation, family: migrator.family.name,
                                        target: target ?? migrator.family.versionNames.last ?? "")
            return .named(await results.collect(tenants, live: format == .text) { name in
                try await migrator.migrate(tenant: name, each)
            })
        }
    }
}
