import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import TypedSQL

/// One tenant's online migration on Citus, in the tenant's own schema (docs/Citus.md, "Online
/// migrations on Citus"): only that schema's tables are colocated with the tenant's, on its
/// worker, so the shadow, the change log and the lease are tables there under names of their own
/// (`_tm_shadow_…`), and the cutover swaps by renames (``InSchemaSwap``), a change of the catalog
/// only: no row moves.
///
/// 1. **prepare**: the lease row (``InSchemaLease``), the log and the capture functions, and the
///    triggers on the live tables (SHARE ROW EXCLUSIVE for milliseconds); the capture runs on the
///    tenant's worker and logs while the lease is fresh.
/// 2. **copy**: the shadow's tables bare, filled in batches by key while the app reads and writes,
///    each batch a transaction of its own; the lease is renewed between batches, and a renewal
///    that finds it lapsed fails the run (the log may have a gap): the tenant stays at its old
///    version and the next run starts over.
///    Then, in one snapshot, the rows the app changed during the copy are brought in
///    (``ShadowTables/sync(on:)``), the shadow gets its keys and indexes, and the archive is copied
///    (``OnlineContext/syncShadow(_:)``).
/// 3. **build**: the steps that can be caught up run on the shadow, as on plain PostgreSQL
///    (``OnlineContext/build()``, under the shadow's naming).
/// 4. **catch up**: rounds of ``CatchUpRound`` (``OnlineContext/catchUp()``), whose delta is built
///    in the tenant's schema too, under a third naming (``TableNaming/citusDelta``), and dropped in
///    the round's transaction; the lease is renewed after the build and after each round. From
///    the copy to the cutover, a session of its own (``InSchemaLease/Renewer``) also renews it
///    every third of its duration (``OnlineSettings/citusLeaseDuration``), so that a build or a
///    round longer than the lease does not let it lapse.
/// 5. **cut over**, one transaction: lock the live tables EXCLUSIVE (writes wait from here, reads go
///    on), check the lease is still fresh, catch up the last changes, run the steps that could not
///    be caught up (writes-wait ones), lock ACCESS EXCLUSIVE (reads wait), drop the triggers and the
///    run's objects, swap by renames, give each table its rights, identity and autovacuum back,
///    record the version; commit. Then the retired tables go.
///
/// Every table the run makes in the tenant's schema (the shadow's, its archive, the records of
/// distinct keys) loses, in the transaction that made it, the rights the schema's default
/// privileges gave the app (``OnlineContext/keepShadowPrivate(on:)``). A crash before the commit
/// leaves the tenant at its old version: the triggers log nothing once the lease lapsed, and the
/// next run (online or offline) or `online cleanup` removes them with the rest
/// (``InSchemaLeftovers``).
struct InSchemaOnlineRun {
    let context: OnlineContext
    let lease: InSchemaLease

    init(context: OnlineContext, lease: InSchemaLease) {
        self.context = context
        self.lease = lease
    }

    /// The capture of a run in the tenant's schema.
    static func capture(schemas: OnlineSchemas, lease: InSchemaLease) -> ChangeCapture {
        ChangeCapture(schemas: schemas, inSchemaLease: lease)
    }

    var connection: Connection { context.connection }
    var schema: String { context.schemas.tenant }
    var plan: MigrationPlan { context.plan.plan }
    var shadow: ShadowTables { context.shadow(of: plan.source) }

    /// Prepares, copies, builds, catches up and cuts over; the statistics of the steps.
    func run() throws -> StepStatistics {
        try prepare()
        // A statement of the build or of a round can outlast the lease (a large tenant's step):
        // a session of its own keeps it fresh meanwhile. It stops before the cutover, which drops
        // the lease's table (a renewal waiting for that would hold the run up).
        let renewer = InSchemaLease.Renewer(lease, connection: try connection.anotherSession(applicationName: "tenant-migrate lease renewer"))
        defer { renewer.stop() }
        try copy()
        try renewLease(during: "the copy")
        try context.build()
        try renewLease(during: "the build")
        context.afterRound = { try renewLease(during: "catch-up") }
        defer { context.afterRound = nil }
        try context.catchUp()
        renewer.stop()
        let statistics = try cutover()
        dropRetired()
        return statistics
    }

    /// The lease, the log and the triggers, in one transaction.
    private func prepare() throws {
        try context.retryingLocks {
            try connection.transaction { connection in
                try TenantExecutor.setLockTimeout(context.settings.lockTimeout, on: connection)
                try lease.create(on: connection)
                try context.capture.createLog(on: connection)
                try context.run.executor.waitingForLocks(connection) {
                    _ = try connection.execute("LOCK TABLE \(context.liveTables, joinedBy: ", ") IN \(keyword: TableLockMode.shareRowExclusive) MODE")
                }
                try context.preconditions.recheck(context.liveTables, on: connection)
                try context.capture.install(on: plan.source.relationalSchema().tables.sorted { $0.name < $1.name }.map { ($0, []) },
                                            connection: connection)
            }
        }
        try context.checkpoint(.prepared)
    }

    /// The shadow's tables, bare and the migrator's alone, then the live rows in batches.
    private func copy() throws {
        try connection.transaction { connection in
            try shadow.create(on: connection)
            try Self.revokeOthers(onNamesStartingWith: TableNaming.citusShadow.prefix, in: schema, on: connection)
        }
        for table in plan.source.relationalSchema().tables.map(\.name).sorted() {
            var cursor = ShadowTables.Cursor(table: table)
            while !cursor.done {
                try context.checkStop()
                let rows = try context.retryingLocks { try shadow.copyBatch(&cursor, limit: context.online.batchRows, on: connection) }
                try renewLease(during: "the copy")
                context.progress.rowsCopied += rows
                context.settings.observability.countOnlineRowsCopied(rows, family: context.family, tenant: context.run.tenant)
                try context.checkpoint(.copying)
            }
        }
        try context.syncShadow(shadow)
    }

    private func renewLease(during phase: String) throws {
        guard try lease.renew(on: connection) else {
            throw OnlineRefusal(tenant: context.run.tenant, reason: "its change capture's lease lapsed during \(phase) (more than \(lease.duration) "
                + "between two renewals), so changes may be missing; run the migration again")
        }
    }

    /// The cutover, retried as a whole when it loses a lock race.
    private func cutover() throws -> StepStatistics {
        try context.retryingCutover(beforeRetry: ("renewing the lease", { try renewLease(during: "the cutover's retries") })) { try cutover(attempt: $0, phases: &$1) }
    }

    private func cutover(attempt: Int, phases: inout CutoverPhases) throws -> StepStatistics {
        let clock = ContinuousClock()
        let live = context.liveTables
        try TenantExecutor.setLockTimeout(context.settings.lockTimeout, on: connection)
        try context.checkStop()
        _ = try connection.execute("LOCK TABLE \(live, joinedBy: ", ") IN \(keyword: TableLockMode.exclusive) MODE")
        let writesBlocked = clock.now
        phases.mark("writes locked")
        try context.preconditions.recheck(live, on: connection)
        // No write can come any more: the log is complete if the lease never lapsed until now.
        guard try connection.execute("SELECT \(lease.heldSQL)").first?.decode(Bool.self, at: 0) == true else {
            throw OnlineRefusal(tenant: context.run.tenant, reason: "its change capture's lease lapsed before the cutover, so changes may be missing; run the migration again")
        }
        let statistics = try context.catchUpLast(phases: &phases)
        _ = try connection.execute("LOCK TABLE \(live, joinedBy: ", ") IN \(keyword: TableLockMode.accessExclusive) MODE")
        let readsBlocked = clock.now
        phases.mark("reads locked")
        try OnlineDependents.refuse(context.run.tenant, at: context.record.version, schema: schema, on: connection)
        phases.mark("dependents checked")
        try swap(live: live, liveArchive: try TenantArchive.exists(inSchema: schema, on: connection))
        phases.mark("swapped")
        try context.recordCutover(attempt: attempt, statistics: statistics, writesBlocked: writesBlocked, readsBlocked: readsBlocked, phases: &phases)
        return statistics
    }

    /// The run's own objects go, the names swap, and each new table gets the rights, identity,
    /// autovacuum, adopted names of indexes and comments on indexes and constraints of what it
    /// replaces (as ``OnlineCutover`` does across schemas).
    private func swap(live: [SQL], liveArchive: Bool) throws {
        try ChangeCapture.removeTriggers(from: live, on: connection)
        // The run's own objects carry the shadow's naming too: gone before the swap, which gives
        // every `_tm_shadow_` relation of the schema the model's name.
        let own: [SQL] = ([ChangeCapture.logTable, InSchemaLease.table] + context.plan.distinct.flatMap(\.bookkeepingTables))
            .map { "\(schema: schema, table: TableNaming.citusShadow.name($0))" }
        var statements: [Statement] = [Statement("DROP TABLE \(own, joinedBy: ", ")")]
        if liveArchive {
            statements.append(Statement("DROP TABLE \(schema: schema, table: TableNaming.citusShadow.name(ShadowTables.liveArchive))"))
        }
        statements.append(Statement("DROP INDEX IF EXISTS \(schema: schema, table: TableNaming.citusShadow.name(ShadowTables.archiveRowsIndex))"))
        for function in [ChangeCapture.rowFunction, ChangeCapture.truncateFunction] {
            statements.append(Statement("DROP FUNCTION \(schema: schema, table: TableNaming.citusShadow.name(function))()"))
        }
        try connection.pipeline(statements)
        let archive = TenantArchive.tableName
        let source = plan.source.relationalSchema(), destination = plan.destination.relationalSchema()
        // An adopted tenant's own names of the indexes (and the keys and unique constraints they
        // carry) the swap keeps, read from the live tables before they step aside, given once the
        // shadow's have the model's names (Citus renames no foreign key or check: docs/Citus.md).
        let adoptedNames = try plan.adoptedNameRenames(liveSchema: schema, newSchema: schema, constraintsWithoutIndex: false, on: connection)
        try InSchemaSwap(schema: schema, live: source.tables.map(\.name) + (liveArchive ? [archive] : [])).run(on: connection)
        if !adoptedNames.isEmpty { _ = try connection.pipeline(adoptedNames, schema: schema) }
        let shadowArchive = try TenantArchive.exists(inSchema: schema, on: connection)
        let swapped = destination.tables.map(\.name) + (shadowArchive ? [archive] : [])
        try connection.pipeline(swapped.map { Statement(ShadowTables.autovacuumReset(schema: schema, table: $0)) })
        let origins = OnlineLineage.tableOrigins(of: plan), columnOrigins = OnlineLineage.columnOrigins(of: plan)
        var kept: [(source: SQL, target: SQL)] = []
        for table in destination.tables {
            let old = origins[table.name].map { QualifiedTable(schema: schema, name: InSchemaSwap.retired.name($0)) }
            let new = QualifiedTable(schema: schema, name: table.name)
            let identity = table.column(named: "id").map { $0.isIdentity || $0.generation == .serial } == true
            // Rights: the old table's where the new one is that table through the steps (a table a mapping
            // fills from it is a new one, as offline), each column's its own column's.
            let continued = columnOrigins[table.name]
            try TableGrants.carry(to: new, from: continued == nil ? nil : old, schema: schema, hasIdentity: identity, columnOrigins: continued, on: connection)
            if identity { try Self.advanceIdentity(of: new, past: old, on: connection) }
            if let old { kept.append((old.oid, new.oid)) }
            // As on plain PostgreSQL: the old one, renamed aside with its table, gives nothing more
            // to a draw that found it by name and waited for the cutover (it would draw an id the
            // new sequence, set past the old one, gives again).
            if identity, let old {
                try RetiredSequence.runOut("pg_catalog.pg_get_serial_sequence(\(bind: old.text), 'id')::pg_catalog.regclass", on: connection)
            }
        }
        // The comments on the indexes and constraints each table kept (the model carries none).
        let comments = try ObjectComments.statements(for: kept, retiredPrefix: InSchemaSwap.retired.prefix, on: connection)
        if !comments.isEmpty { try connection.pipeline(comments.map { Statement($0) }) }
        if shadowArchive {
            let old = liveArchive ? QualifiedTable(schema: schema, name: InSchemaSwap.retired.name(archive)) : nil
            try TableGrants.carry(to: QualifiedTable(schema: schema, name: archive), from: old, schema: nil, hasIdentity: false, on: connection)
        }
        // The retired tables keep no right of anyone's until they are dropped, after the commit.
        try Self.revokeOthers(onNamesStartingWith: InSchemaSwap.retired.prefix, in: schema, on: connection)
    }

    /// After the commit: the retired tables go (they are the old version's rows, kept by nothing:
    /// a rollback goes through the archive). If that fails, the next run or `online cleanup` drops them.
    private func dropRetired() {
        do {
            try connection.transaction { try InSchemaLeftovers.drop(in: schema, on: $0) }
        } catch {
            context.log("could not drop the retired tables after the cutover (\(error)); the next run or `online cleanup` drops them", level: .warning)
        }
    }

    /// Sets `table`'s `id` sequence past its largest id and past the last value `old`'s sequence
    /// gave out, as ``TableGrants/advanceIdentity(of:past:on:)`` does, but only within the
    /// sequence's bounds and never backwards: Citus gives a distributed table's bigint identity a
    /// range of its own per node (from the node's group id × 2^48), so a table the steps made has ids
    /// below its sequence's range, which gives none of them again anyway (setval there fails, 22003).
    static func advanceIdentity(of table: QualifiedTable, past old: QualifiedTable?, on connection: Connection) throws {
        let sequence: SQL = "pg_catalog.pg_get_serial_sequence(\(bind: table.text), 'id')::pg_catalog.regclass"
        let previous: SQL = old.map { "pg_catalog.pg_sequence_last_value(pg_catalog.pg_get_serial_sequence(\(bind: $0.text), 'id')::pg_catalog.regclass)" }
            ?? "NULL::pg_catalog.int8"
        try connection.execute("""
            SELECT pg_catalog.setval(q.seqrelid, v.last, true)
            FROM pg_catalog.pg_sequence AS q,
                 LATERAL (SELECT GREATEST(coalesce((SELECT pg_catalog.max(t.id) FROM \(table.sql) AS t), 0), coalesce(\(previous), 0)) AS last) AS v
            WHERE q.seqrelid = \(sequence) AND v.last BETWEEN q.seqmin AND q.seqmax
              AND v.last > coalesce(pg_catalog.pg_sequence_last_value(q.seqrelid), q.seqmin - 1)
            """)
    }

    /// Takes every right on the relations of `schema` whose names start with `prefix` (on one or on
    /// one of its columns) from every role but their owner (the migrator): what the schema's
    /// default privileges gave the app on the shadow's tables when they were made, and its rights
    /// on the retired tables, the dropped columns' included (with `CASCADE`, as
    /// ``RetiredTables/revokeGrants(in:on:)`` revokes them).
    static func revokeOthers(onNamesStartingWith prefix: String, in schema: String, on connection: Connection) throws {
        let revokes = try connection.execute("""
            SELECT pg_catalog.format('REVOKE ALL ON %s %s FROM %s CASCADE', CASE c.relkind WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, c.oid::pg_catalog.regclass,
                                     CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END)
            FROM pg_catalog.pg_class c, \(TableGrants.othersRights)
            WHERE c.relnamespace = \(bind: schema)::pg_catalog.regnamespace AND pg_catalog.starts_with(c.relname, \(bind: prefix)) AND a.grantee <> c.relowner
            GROUP BY c.oid, c.relkind, a.grantee
            """).map { Statement("\(quotedByServer: try $0.decode(String.self, at: 0))") }
        if !revokes.isEmpty { try connection.pipeline(revokes) }
    }
}
