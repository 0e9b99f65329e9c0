import MigrationEngine
import TenantMigrator

/// `migrate` and `rollback`: a fleet run with --all, --match or --limit; otherwise each named
/// tenant in turn, a tenant named alone moving even when pinned.
struct TenantMove {
    /// `.up` for `migrate`, `.down` for `rollback`.
    let direction: MigrationDirection
    let target: String?
    let tenants: [String]
    let migration: MigrationOptions
    let fleet: FleetOptions

    func run(with migrator: TenantMigrator, database: DatabaseResolver.Choice, console: Console) async throws {
        var migrator = migrator
        migration.configure(&migrator)
        let up = direction == .up
        let target = self.target, allowDestructive = migration.allowDestructive, mode = migration.mode
        if fleet.isFleet {
            let selection = fleet.selection(names: tenants), jobs = fleet.jobs, failFast = fleet.failFast
            let run = FleetRun(verb: up ? "migrated" : "rolled back", activity: up ? "migrating" : "rolling back", mode: mode,
                               json: migration.json, console: console, databaseNote: database.summaryNote)
            return try await run.run { control, progress in
                up
                    ? try await migrator.migrateAll(to: target, selection: selection, jobs: jobs, failFast: failFast,
                                                    allowDestructive: allowDestructive, mode: mode, control: control, progress: progress)
                    : try await migrator.rollbackAll(to: target ?? migrator.family.versionNames[0], selection: selection, jobs: jobs,
                                                     failFast: failFast, allowDestructive: allowDestructive, mode: mode, control: control,
                                                     progress: progress)
            }
        }
        // One tenant named alone is the operator's decision to move it; a list is a selection.
        let pins: PinPolicy = tenants.count == 1 ? .override : .respect
        try await TenantResults(json: migration.json, mode: mode).collect(tenants) { name in
            up
                ? try await migrator.migrate(tenant: name, to: target, allowDestructive: allowDestructive, mode: mode, pins: pins)
                : try await migrator.rollback(tenant: name, to: target ?? migrator.family.versionNames[0], allowDestructive: allowDestructive,
                                              mode: mode, pins: pins)
        }
    }
}
