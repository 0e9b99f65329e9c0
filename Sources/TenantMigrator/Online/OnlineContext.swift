import EntityModel
import Foundation
import LibPQ
import Logging
import MigrationEngine
import TypedSQL

/// What one online run knows and has done, shared by its phases: the plan, the tenant, its
/// schemas, the change capture, and the progress reported in logs, metrics and the result.
final class OnlineContext {
    let run: TenantRun
    let plan: OnlinePlan
    let record: TenantRecord
    let schemas: OnlineSchemas
    let capture: ChangeCapture
    var progress: OnlineProgress
    /// Steps run on the shadow so far, for the result.
    var statistics = StepStatistics()
    /// Whether the run keeps its state row (``OnlineState``) in its private schema: not on Citus,
    /// where it has none (``InSchemaOnlineRun``).
    var keepsState = true
    /// How the shadow's names are spelled: the model's in the run's private schema (plain
    /// PostgreSQL), ``TableNaming/citusShadow`` next to the live tables in the tenant's schema
    /// (Citus, ``InSchemaOnlineRun``), where each round's delta is there too, under
    /// ``TableNaming/citusDelta``.
    var shadowNaming: TableNaming = .model
    /// What the layout does after each catch-up round before the cutover: on Citus, renew the
    /// capture's lease (``InSchemaOnlineRun``); nothing on plain PostgreSQL, whose lease is the
    /// runner's session.
    var afterRound: (() throws -> Void)?
    /// The step a failure belongs to, for the error's "in step …" as offline: the step whose own
    /// statement failed on the shadow or in a catch-up round's delta, or the one whose change a
    /// data error or a violation was traced to (``explaining(_:)``); nil when the failure is the
    /// run's own (a copy, a round's merge, the swap).
    var failedStep: MigrationStep?
    private var lastProgressLog = ContinuousClock.now
    private var lastPhase: OnlinePhase?

    init(run: TenantRun, plan: OnlinePlan, record: TenantRecord, schemas: OnlineSchemas, capture: ChangeCapture) {
        self.run = run
        self.plan = plan
        self.record = record
        self.schemas = schemas
        self.capture = capture
        let decisive = zip(plan.plan.steps, plan.modes).max { $0.1.kind < $1.1.kind }
        let reason = decisive.map { "\($0.0.source.name) → \($0.0.destination.name): \($0.1.reason)" } ?? "nothing to do"
        // Catalog-only steps run online only where the archive holds values they give back
        // (``OnlineRun``'s offline choice): through the shadow, as the report says.
        progress = plan.kind == .catalogOnly
            ? OnlineProgress(mode: OnlineStepMode.Kind.shadow.rawValue, reason: "\(reason), and the archive holds values its steps give back")
            : OnlineProgress(mode: plan.kind.rawValue, reason: reason)
    }

    var connection: Connection { run.connection }
    /// The schema of the shadow's tables (``shadowNaming``).
    var shadowSchema: String { shadowNaming == .model ? schemas.work : schemas.tenant }
    /// The schema and naming of a catch-up round's delta.
    var delta: SchemaNaming {
        shadowNaming == .model ? SchemaNaming(schema: schemas.delta, tables: .model) : SchemaNaming(schema: schemas.tenant, tables: .citusDelta)
    }
    /// The shadow's tables of `version`.
    func shadow(of version: ModelVersion) -> ShadowTables {
        ShadowTables(version: version, live: schemas.tenant, schema: shadowSchema, naming: shadowNaming)
    }
    var settings: MigrationSettings { run.settings }
    var online: OnlineSettings { settings.online }
    var family: String { run.family.name }

    /// The online preconditions of this run, to check again under a later phase's locks.
    var preconditions: OnlinePreconditions { OnlinePreconditions(plan: plan.plan, schemas: schemas, tenant: run.tenant) }

    /// The live tables (the source version's), qualified, in the fixed order every migration locks them.
    var liveTables: [SQL] { TenantExecutor.tablesToLock(of: plan.plan.source, inSchema: schemas.tenant) }

    /// The executor's options for the steps caught up, as offline but for proofs by the way back:
    /// only those catch-up follows (``StepExecutor/Options/online``).
    var executorOptions: StepExecutor.Options {
        StepExecutor.Options(allowDestructive: run.request.allowDestructive, archives: settings.archives, provesWayBack: settings.provesWayBack, online: true)
    }

    // MARK: - Reporting

    func log(_ message: String, level: Logger.Level = .info) {
        run.logger.log(level: level, "\(message)", metadata: [
            "step": "\(record.version) → \(run.destination.name)", "phase": "\(progress.phase.rawValue)",
        ])
    }

    /// Enters `phase`: the state row, the metrics, the logs (at most every 5 s within a phase) and
    /// the settings' checkpoint.
    func checkpoint(_ phase: OnlinePhase) throws {
        let entering = phase != lastPhase
        lastPhase = phase
        progress.phase = phase
        if entering { settings.observability.countOnlinePhase(phase, family: family, tenant: run.tenant) }
        if entering || ContinuousClock.now - lastProgressLog > .seconds(5) {
            lastProgressLog = .now
            log("\(phase.rawValue): \(progress.rowsCopied) rows copied, \(progress.changesCaughtUp) changes caught up in \(progress.rounds) rounds")
        }
        if keepsState, phase != .done, connection.isHealthy, !connection.isInTransaction { try OnlineState.update(progress, in: schemas, on: connection) }
        try online.checkpoint?(OnlineCheckpoint(tenant: run.tenant, phase: phase, progress: progress, backendPID: connection.backendPID))
    }

    /// Throws ``OnlineStopped`` when the fleet run cancels the tenants in flight (a second stop).
    /// A first stop lets this run finish, as it lets an offline tenant in flight commit: the run
    /// has changed the tenant's schema (the change capture) since ``prepare()``.
    func checkStop() throws {
        if run.executor.control?.isCancelRequested == true || Task.isCancelled { throw OnlineStopped(fromVersion: record.version) }
    }

    // MARK: - Phases before the cutover

    /// Removes what an earlier run of this tenant left: its triggers, private schema and retired tables.
    func removeLeftovers() throws {
        if let earlier = try OnlineState.read(in: schemas, on: connection) {
            log("an earlier online run (\(earlier)) did not finish; removing what it left and starting over", level: .warning)
        }
        try OnlineCleanup(schemas: schemas, executor: run.executor).removeRun(on: connection)
        try OnlineSchemas.dropRetired(schemas.retired, on: connection)
    }

    /// The private schema, the log and its triggers (SHARE ROW EXCLUSIVE on the live tables, for
    /// as long as it takes to create them: writes wait, reads do not).
    func prepare() throws {
        try retryingLocks {
            try connection.transaction { connection in
                try TenantExecutor.setLockTimeout(settings.lockTimeout, on: connection)
                try OnlineSchemas.createPrivate(schemas.work, on: connection)
                try capture.createLog(on: connection)
                try OnlineState.create(for: run, record: record, progress: progress, in: schemas, on: connection)
                try run.executor.waitingForLocks(connection) {
                    _ = try connection.execute("LOCK TABLE \(liveTables, joinedBy: ", ") IN \(keyword: TableLockMode.shareRowExclusive) MODE")
                }
                try preconditions.recheck(liveTables, on: connection)
                let tables = plan.plan.source.relationalSchema().tables.sorted { $0.name < $1.name }
                let readers = Set(plan.lineage.readers)
                try capture.install(on: tables.map { table in
                    (table,
                     readers.filter { $0.table == table.name }.sorted { $0.column < $1.column }.map { ($0.column, $0.referencedTable) })
                }, connection: connection)
            }
        }
        try checkpoint(.prepared)
    }

    /// Copies the live tables into the shadow, batch by batch, then adds their keys and indexes
    /// and copies the archive.
    func copy() throws {
        let shadow = ShadowTables(version: plan.plan.source, live: schemas.tenant, schema: schemas.work)
        try connection.transaction { try shadow.create(on: $0) }
        for table in plan.plan.source.relationalSchema().tables.map(\.name).sorted() {
            var cursor = ShadowTables.Cursor(table: table)
            while !cursor.done {
                try checkStop()
                let rows = try retryingLocks { try shadow.copyBatch(&cursor, limit: online.batchRows, on: connection) }
                progress.rowsCopied += rows
                settings.observability.countOnlineRowsCopied(rows, family: family, tenant: run.tenant)
                try checkpoint(.copying)
            }
        }
        try syncShadow(shadow)
    }

    /// After the batches: one snapshot for the rows changed during the copy, so that the shadow is
    /// the live tables as of that snapshot before its keys are checked; then its keys, indexes,
    /// statistics and the archive.
    func syncShadow(_ shadow: ShadowTables) throws {
        try retryingLocks {
            try connection.transaction(beginStatement: "BEGIN ISOLATION LEVEL REPEATABLE READ") { connection in
                try leaveTheCoresToTheApp(on: connection)
                try CatchUpRound.prepare(on: connection)
                let taken = try capture.take(on: connection)
                try refuseTruncation(taken.truncated)
                try shadow.sync(on: connection)
                progress.changesCaughtUp += taken.entries
                settings.observability.countOnlineChanges(taken.entries, family: family, tenant: run.tenant)
                try shadow.finish(on: connection)
                try shadow.analyze(on: connection)
                try shadow.copyArchive(on: connection)
                try keepShadowPrivate(on: connection)
            }
        }
    }

    /// On Citus, where the shadow's tables are in the tenant's schema, takes back what its default
    /// privileges gave other roles (the app) on each table the caller's transaction made, before
    /// it commits: the shadow is the migrator's alone.
    func keepShadowPrivate(on connection: Connection) throws {
        guard shadowNaming != .model else { return }
        try InSchemaOnlineRun.revokeOthers(onNamesStartingWith: shadowNaming.prefix, in: schemas.tenant, on: connection)
    }

    private func refuseTruncation(_ table: String?) throws {
        if let table {
            throw OnlineRefusal(tenant: run.tenant, reason: "table \(table) was truncated while the tenant migrated online; run the migration again")
        }
    }

    /// Runs the steps that can be caught up on the shadow, as offline (account, archive, restore,
    /// validation), then analyzes the shadow's tables.
    func build() throws {
        guard !plan.caughtUp.isEmpty else { return try checkpoint(.built) }
        // Retried as any lock race (rolled back whole, counted once it commits): autovacuum, drawn
        // by the rows just copied, may hold a shadow table that a step alters.
        let built = try retryingLocks {
            try connection.transaction { connection in
                try leaveTheCoresToTheApp(on: connection)
                // What catch-up needs to follow the distinct mappings by key, as the rows are before the steps.
                try TableNaming.rendering(shadowNaming, in: shadowSchema) {
                    for distinct in plan.distinct { try distinct.recordKeys(shadow: shadowSchema, on: connection) }
                }
                let built = try runOnShadow(plan.caughtUp, on: connection)
                // Tables the steps made (the archive, the records of keys) have autovacuum off as
                // the copied ones; the change log, which the app's writes fill, keeps it.
                try shadow(of: plan.caughtUpVersion)
                    .turnAutovacuumOffOnEveryTable(but: Set([ChangeCapture.logTable, OnlineState.table].map(shadowNaming.name)), on: connection)
                try keepShadowPrivate(on: connection)
                return built
            }
        }
        statistics = statistics + built
        // Autovacuum, drawn by the rows just copied, may hold a shadow table: it yields to a waiting
        // lock only after deadlock_timeout (1 s, as long as the default lock_timeout, so the wait
        // could time out first, 55P03, and fail the run). A table it holds is skipped: autovacuum
        // is analyzing it, or will; the shadow is the migrator's alone, so nothing else holds it.
        for table in plan.caughtUpVersion.relationalSchema().tables {
            try connection.execute("ANALYZE (SKIP_LOCKED) \(schema: shadowSchema, table: shadowNaming.name(table.name))")
        }
        // The archive the steps wrote (or created): found by table and row in each round, also
        // when the steps made it here. Without the index, and statistics, each round's merge read
        // every entry (0.3 to 0.5 s per table at 1,000,000 rows, in the cutover too).
        if try TableNaming.rendering(shadowNaming, in: shadowSchema, { try TenantArchive.exists(inSchema: shadowSchema, on: connection) }) {
            let archive: SQL = "\(schema: shadowSchema, table: shadowNaming.name(TenantArchive.tableName))"
            try retryingLocks {
                try connection.transaction { connection in
                    try leaveTheCoresToTheApp(on: connection)
                    _ = try connection.execute("CREATE INDEX IF NOT EXISTS \(id: shadowNaming.name(ShadowTables.archiveRowsIndex)) ON \(archive) (table_name, row_id)")
                }
            }
            try connection.execute("ANALYZE (SKIP_LOCKED) \(archive)" as SQL)
        }
        try checkpoint(.built)
    }

    /// Runs `steps` on the shadow (in ``shadowSchema``, under ``shadowNaming``) over `connection`,
    /// each observed as the run's steps are, and returns `statistics` with theirs added. The build
    /// runs the steps that can be caught up; the cutover, under its write lock, those that cannot
    /// (`whileWritesWait`), as offline steps: nothing is caught up after them, so every proof by
    /// the way back holds.
    func runOnShadow(
        _ steps: [MigrationStep], whileWritesWait: Bool = false, on connection: Connection, adding statistics: StepStatistics = StepStatistics()
    ) throws -> StepStatistics {
        var options = executorOptions
        if whileWritesWait { options.online = false }
        var executor = StepExecutor(schema: shadowSchema, connection: connection, options: options)
        executor.naming = shadowNaming
        var statistics = statistics
        for step in steps {
            log("running step \(step) on the shadow" + (whileWritesWait ? " while writes wait" : ""))
            do {
                statistics = statistics + (try run.executor.observingStep(step) { try executor.run(step) })
            } catch {
                failedStep = step
                throw error
            }
        }
        return statistics
    }

    /// In the caller's transaction, index builds use no parallel workers: at 1,000,000 rows the
    /// shadow's keys and indexes were built by the run's backend and two workers, which took every
    /// core of a small server while the app's statements waited for one (issue 33).
    private func leaveTheCoresToTheApp(on connection: Connection) throws {
        _ = try connection.execute("SET LOCAL max_parallel_maintenance_workers = 0")
    }

    /// Catch-up rounds, each in a REPEATABLE READ transaction (one snapshot of the log and the live
    /// rows), until one finds few changes.
    func catchUp() throws {
        for _ in 0..<online.maxRounds {
            try checkStop()
            let entries = try retryingLocks {
                try connection.transaction(beginStatement: "BEGIN ISOLATION LEVEL REPEATABLE READ") { _ in try round() }
            }
            try afterRound?()
            try checkpoint(.catchingUp)
            if entries <= online.cutoverChanges { return }
        }
    }

    /// One catch-up round in the caller's transaction: the log's entries into the change set, the
    /// changed rows migrated again into the shadow.
    ///
    /// - Returns: the log entries taken.
    @discardableResult
    func round() throws -> Int {
        let round = CatchUpRound(
            plan: plan, live: schemas.tenant, shadow: shadowSchema, delta: delta.schema, options: executorOptions, connection: connection,
            shadowNaming: shadowNaming, deltaNaming: delta.tables
        )
        try round.prepare()
        let taken = try capture.take(into: round.changed, on: connection)
        try refuseTruncation(taken.truncated)
        // A round begun again after a lost lock race starts afresh: only the failure that ends the
        // run names its step, here the caught-up step that failed in the delta.
        failedStep = nil
        let outcome = try round.run { failedStep = $0 }
        // The deferred foreign keys' checks of the rows just merged run now, as they would at the
        // commit: pending, they made any later ALTER TABLE of the table in this transaction (the
        // cutover's swap) fail, 55006 (a Django schema's keys are all DEFERRABLE INITIALLY DEFERRED).
        try connection.execute("SET CONSTRAINTS ALL IMMEDIATE" as SQL)
        progress.rounds += 1
        progress.changesCaughtUp += taken.entries
        progress.rowsMigratedAgain += outcome.changedRows
        settings.observability.countOnlineChanges(taken.entries, family: family, tenant: run.tenant)
        return taken.entries
    }

    /// After the cutover committed: the private schema (log, state, functions) goes. What came to
    /// depend on the retired tables during the cutover (``RetiredTablesInUse``) is named in a warning.
    func finish() throws {
        do {
            try OnlineSchemas.drop(schemas.work, on: connection)
        } catch {
            log("could not drop \(schemas.work) after the cutover (\(error)); the next run or `online cleanup` drops it", level: .warning)
        }
        if let objects = try? RetiredTablesInUse.find(in: schemas.retired, on: connection), !objects.isEmpty {
            log("made while the cutover ran, \(objects.joined(separator: ", ")) names the retired tables, not the tenant's; "
                + "they are kept (the next online run, archive prune and tenant drop refuse to drop them) until it is dropped", level: .warning)
        }
        try checkpoint(.done)
    }

    /// After a failure before the cutover committed: the triggers and the private schema go, if
    /// the connection still works and the tables can be locked in time; otherwise they stay,
    /// inert, for the next run or `online cleanup`.
    func cleanUpAfterFailure() {
        guard connection.isHealthy else {
            log("the connection is lost; the change capture left on the live tables is inert and goes with the next run", level: .warning)
            return
        }
        do {
            if connection.isInTransaction { return }
            try OnlineCleanup(schemas: schemas, executor: run.executor).removeRun(on: connection)
        } catch {
            log("could not remove the change capture (\(error)); it is inert, and the next run or `online cleanup` removes it", level: .warning)
        }
    }

    /// Runs `body`, retried with backoff when it loses a lock race (55P03, 40P01), up to the
    /// settings' attempts.
    func retryingLocks<T>(_ body: () throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try body()
            } catch where TenantExecutor.isRetryable(error) && attempt < settings.maxAttempts {
                let delay = run.executor.backoff(afterAttempt: attempt)
                log("waited longer than lock_timeout for a lock; retrying in \(Int(delay * 1000)) ms", level: .warning)
                try TenantExecutor.sleep(delay)
            }
        }
    }
}
