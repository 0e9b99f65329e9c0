import ArgumentParser
import MigrationEngine
import TenantMigrator

/// `tenant-migrate check`: can every adjacent pair of versions migrate, both ways? Offline.
struct CheckCommand: RunnerCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check offline that every adjacent pair of versions can migrate, in both directions.",
        discussion: """
            Each pair is mapped (a mapping model exists for it), inferred (the change follows the \
            lightweight rules), or IMPOSSIBLE, with the reasons. Then every filter and value \
            expression of the mapping models is checked against PostgreSQL, on a scratch schema \
            in a transaction that is rolled back: nothing is written. Exits non-zero if any pair \
            is impossible or any expression is not valid SQL. With --offline, needs no database \
            and skips the SQL check.

            With --round-trip, also generates synthetic data for every version (--rows per \
            entity, reproducible with --seed) in a scratch schema, migrates it up and down each \
            adjacent pair and first → last → first with the real mappings and policies, and \
            reports each value that did not come back and is not declared lost (entity, \
            attribute, row, both values); exits 1 if there is one. Touches no tenant; everything \
            is rolled back. See docs/Archive.md.
            """
    )

    @OptionGroup var options: GlobalOptions
    @Flag(help: "Check the versions and mappings without a database (skips the SQL check of mapping expressions).")
    var offline = false

    @Flag(name: .long, help: "Also migrate synthetic data of every version there and back again (each adjacent pair, and first → last → first) and report every value that did not come back and is not declared lost. Needs a database; writes nothing.")
    var roundTrip = false

    @Option(help: "The seed of the --round-trip data: the same seed gives the same data.")
    var seed: Int = 1

    @Option(help: "Rows per entity of the --round-trip data.")
    var rows: Int = 50

    @Flag(help: "Print the --round-trip results as JSON.") var json = false

    @Option(help: DocumentFormat.help(" With markdown or html, check writes the document only, offline; it exits 1 if a step is impossible."))
    var format: DocumentFormat = .text

    func validate() throws {
        guard !(offline && roundTrip) else { throw ValidationError("--round-trip needs a database; it cannot run with --offline") }
        guard rows >= 1 else { throw ValidationError("--rows must be at least 1") }
        guard roundTrip || !json else { throw ValidationError("--json applies to --round-trip") }
        guard format == .text || !roundTrip else { throw ValidationError("--format \(format.rawValue) documents the steps; run --round-trip separately") }
    }

    func perform() async throws {
        if format != .text {
            let planner = try options.makeOfflineMigrator().planner
            format.print(PlanDocument(checking: planner))
            let impossible = planner.checkFamily().filter { !$0.isPossible }
            guard impossible.isEmpty else { throw ExitCode(1) }
            return
        }
        if roundTrip, json {
            try await RoundTripCommand.run(on: try options.makeMigrator(), seed: seed, rows: rows, json: true)
            return
        }
        let migrator = try options.makeOfflineMigrator()
        let checks = migrator.checkFamily()
        print("family \(migrator.family.name): versions \(migrator.family.versionNames.joined(separator: " → "))")
        if checks.isEmpty { print("  (a single version: nothing to migrate)") }
        for check in checks { print("  " + check.description) }
        let impossible = checks.filter { !$0.isPossible }
        guard impossible.isEmpty else {
            throw CLIError(
                "\(impossible.count) of \(checks.count) steps cannot migrate ("
                    + impossible.map { "\($0.source) → \($0.destination)" }.joined(separator: ", ")
                    + "); add a mapping model for each, or change the versions so the step can be inferred"
            )
        }
        print("all \(checks.count) steps can migrate")
        guard !offline else { return }
        if !migrator.mappings.isEmpty {
            try await MappingExpressionCheck.run(on: try options.makeMigrator())
            print("every mapping filter and expression is valid SQL")
        }
        if roundTrip { try await RoundTripCommand.run(on: try options.makeMigrator(), seed: seed, rows: rows, json: false) }
    }
}

/// Options of the commands that migrate: lock timeout and retries.
struct MigrationOptions: ParsableArguments {
    @Flag(name: .long, help: "Run plans that drop data (dropped tables or columns, narrowed types).")
    var allowDestructive = false

    @Option(name: .long, help: ArgumentHelp("How long a statement may wait for a lock before the attempt is retried (0: no limit).", valueName: "ms"))
    var lockTimeout: Int = 5000

    @Option(name: .long, help: ArgumentHelp("Attempts per tenant before a lock timeout is a failure.", valueName: "n"))
    var maxAttempts: Int = 5

    @Flag(name: .long, help: "Migrate tenants even though the model file of their recorded version changed since they reached it (for a change known to be cosmetic).")
    var acceptModelChange = false

    @Option(name: .long, help: ArgumentHelp("How long to keep reconnecting after losing the server (a restart) before giving up on the remaining tenants.", valueName: "seconds"))
    var reconnectTimeout: Int = 60

    @Flag(name: .long, help: "Run each tenant's migration for real, report what would happen or fail (constraint, row, SQLSTATE), then roll it back. Changes nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Run each tenant's migration there and back again, compare every table with how it was, report the first difference, then roll it all back. Changes nothing.")
    var rehearse = false

    @Flag(name: .long, help: "Do not copy what steps destroy or overwrite into the tenant's archive (for huge tables); such plans then need --allow-destructive, and a rollback cannot give those values back.")
    var noArchive = false

    @Flag(help: "Print the results as JSON.") var json = false

    /// Apply, dry run or rehearsal.
    var mode: MigrationRunMode { rehearse ? .rehearse : (dryRun ? .dryRun : .apply) }

    func validate() throws {
        guard !(dryRun && rehearse) else { throw ValidationError("--dry-run and --rehearse are alternatives; choose one") }
        guard lockTimeout >= 0 else { throw ValidationError("--lock-timeout must be 0 or more milliseconds") }
        guard maxAttempts >= 1 else { throw ValidationError("--max-attempts must be at least 1") }
        guard reconnectTimeout >= 0 else { throw ValidationError("--reconnect-timeout must be 0 or more seconds") }
    }

    func configure(_ migrator: inout TenantMigrator) {
        migrator.lockTimeout = .milliseconds(lockTimeout)
        migrator.maxAttempts = maxAttempts
        migrator.acceptModelChange = acceptModelChange
        migrator.reconnectTimeout = .seconds(reconnectTimeout)
        migrator.archives = !noArchive
    }
}

extension Console {
    /// One line per tenant result.
    static func printResult(_ result: TenantMigrationResult, mode: MigrationRunMode = .apply) {
        if mode.isTrial, result.outcome == .migrated {
            let stats = result.statistics
            print("\(result.tenant): \(mode.rawValue): would migrate \(result.fromVersion) → \(result.toVersion) "
                + "(\(stats.rowsAffected) row\(stats.rowsAffected == 1 ? "" : "s"), \(Int(result.milliseconds.rounded())) ms); rolled back, nothing changed")
            return
        }
        switch result.outcome {
        case .alreadyCurrent:
            print("\(result.tenant): already at \(result.toVersion)")
        case .migrated:
            let stats = result.statistics
            print("\(result.tenant): migrated \(result.fromVersion) → \(result.toVersion) in \(Int(result.milliseconds.rounded())) ms "
                + "(\(stats.statements) statement\(stats.statements == 1 ? "" : "s"), \(stats.rowsAffected) row\(stats.rowsAffected == 1 ? "" : "s"), "
                + "\(result.attempts) attempt\(result.attempts == 1 ? "" : "s"))")
        case .failed:
            print("\(result.tenant): FAILED \(result.fromVersion) → \(result.toVersion): \(result.error ?? "unknown error")")
        case .pinned:
            print("\(result.tenant): pinned, left at \(result.fromVersion) (`migrate --tenant \(result.tenant)` alone moves it, `tenant unpin \(result.tenant)` releases it)")
        }
    }
}

/// Runs `operation` for every tenant in order, printing each result; the others carry on when one
/// fails. A single tenant's error is rethrown as is; several failures become one summary error.
func runForEachTenant(
    _ tenants: [String], json: Bool, mode: MigrationRunMode = .apply, _ operation: (String) async throws -> TenantMigrationResult
) async throws {
    var results: [TenantMigrationResult] = []
    var failures: [(tenant: String, error: any Error)] = []
    for tenant in tenants {
        do {
            let result = try await operation(tenant)
            results.append(result)
            if !json { Console.printResult(result, mode: mode) }
        } catch {
            failures.append((tenant, error))
            if let failure = error as? TenantMigrationError { results.append(failure.result) }
            if tenants.count > 1 && !json { print("\(tenant): FAILED: \(CommandLineMessage.describe(error))") }
        }
    }
    if json { try Console.printJSON(results) }
    guard !failures.isEmpty else { return }
    if tenants.count == 1 { throw failures[0].error }
    throw CLIError("\(failures.count) of \(tenants.count) tenants failed: \(failures.map(\.tenant).joined(separator: ", "))")
}
