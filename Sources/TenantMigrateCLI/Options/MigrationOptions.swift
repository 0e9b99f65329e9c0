import Foundation
import ArgumentParser
import TenantMigrator

/// Options of the commands that migrate: lock timeout and retries.
struct MigrationOptions: ParsableArguments {
    @Flag(name: .long, help: "Run plans that lose data for good: losses declared under `loses:`, or anything destroyed with --no-archive (what the archive keeps needs no consent).")
    var allowDestructive = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("How long a statement may wait for a lock before the attempt is retried (0: no limit).", valueName: "ms"))
    var lockTimeout: Int = 5000

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Attempts per tenant before a lock timeout is a failure.", valueName: "n"))
    var maxAttempts: Int = 5

    @Flag(name: .long, help: "Migrate tenants even though the model file of their recorded version changed since they reached it (for a change known to be cosmetic).")
    var acceptModelChange = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("How long to keep reconnecting after losing the server (a restart) before giving up on the remaining tenants.", valueName: "seconds"))
    var reconnectTimeout: Int = 60

    @Flag(name: .long, help: "Run each tenant's migration for real, report what would happen or fail (constraint, row, SQLSTATE), then roll it back. Changes nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Run each tenant's migration there and back again, compare every table with how it was, report the first difference, then roll it all back. Changes nothing.")
    var rehearse = false

    @Flag(name: .long, help: "Do not copy what steps destroy or overwrite into the tenant's archive (for huge tables); such plans then need --allow-destructive, and a rollback cannot give those values back.")
    var noArchive = false

    @Flag(help: "Migrate online: build the new version in a shadow schema while the app reads and writes the tenant, then swap it in with one short transaction (docs/Online.md).")
    var online = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Migrate online the tenants with more rows than this (pg_class.reltuples), the others offline.", valueName: "rows"))
    var onlineAbove: Int?

    /// For tests of crash safety: an online run stops for good at the first checkpoint of this
    /// phase, after saying so on stderr, until the process is killed.
    @Option(name: .long, help: ArgumentHelp(visibility: .private)) var onlinePauseAt: String?

    /// Apply, dry run or rehearsal.
    var mode: MigrationRunMode { rehearse ? .rehearse : (dryRun ? .dryRun : .apply) }

    /// Offline, online, or online above a size.
    var onlineMode: OnlineMode { onlineAbove.map { .above(rows: $0) } ?? (online ? .on : .off) }

    func validate() throws {
        guard !(dryRun && rehearse) else { throw ValidationError("--dry-run and --rehearse are alternatives; choose one") }
        guard lockTimeout >= 0 else { throw ValidationError("--lock-timeout must be 0 or more milliseconds") }
        guard maxAttempts >= 1 else { throw ValidationError("--max-attempts must be at least 1") }
        guard reconnectTimeout >= 0 else { throw ValidationError("--reconnect-timeout must be 0 or more seconds") }
        guard !(online && onlineAbove != nil) else { throw ValidationError("--online and --online-above are alternatives; choose one") }
        if let phase = onlinePauseAt, OnlinePhase(rawValue: phase) == nil {
            throw ValidationError("--online-pause-at takes one of \(OnlinePhase.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard (onlineAbove ?? 0) >= 0 else { throw ValidationError("--online-above must be 0 or more rows") }
        if onlineMode != .off && mode.isTrial {
            throw ValidationError("--\(mode.rawValue) runs each tenant offline and rolls it back; leave out --online and --online-above")
        }
    }

    func configure(_ migrator: inout TenantMigrator) {
        migrator.lockTimeout = .milliseconds(lockTimeout)
        migrator.maxAttempts = maxAttempts
        migrator.acceptModelChange = acceptModelChange
        migrator.reconnectTimeout = .seconds(reconnectTimeout)
        migrator.archives = !noArchive
        if let phase = onlinePauseAt.flatMap(OnlinePhase.init(rawValue:)) {
            migrator.settings.online.checkpoint = { checkpoint in
                guard checkpoint.phase == phase else { return }
                StandardStream.error.writeLine("online: paused at \(phase.rawValue) (backend \(checkpoint.backendPID))")
                while true { Thread.sleep(forTimeInterval: 3600) }
            }
        }
    }
}
