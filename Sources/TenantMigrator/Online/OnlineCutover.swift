import EntityModel
import Foundation
import LibPQ
import MigrationEngine
import TypedSQL

/// The end of an online migration: one transaction, retried when a lock wait runs past
/// `lock_timeout` (55P03), as offline attempts are.
///
/// 1. The live tables are locked EXCLUSIVE (under `lock_timeout`, see ``lock(_:_:)``): writes
///    wait from here, reads go on. Under that lock the online preconditions on the tenant's schema
///    and tables are checked again (``OnlinePreconditions/recheck(_:on:)``).
/// 2. The tenant's record is read again; the last changes are caught up.
/// 3. The steps that could not be caught up run on the shadow (writes wait meanwhile).
/// 4. The live tables are locked ACCESS EXCLUSIVE: reads wait too, from here to the commit. Nothing
///    the model does not define may depend on them (``OnlineDependents``): else the run fails here.
/// 5. The capture triggers go; the live tables (and the archive) move to the retired schema, the
///    shadow's into the tenant's schema (`ALTER TABLE … SET SCHEMA`: the tenant's schema, its OID,
///    its grants and default privileges and the app's `search_path` stay; statements the app
///    prepared on the old tables are planned again, by name, on their next run); each table gets
///    the rights of the table it replaces (or the schema's default privileges), each identity
///    sequence a value past every id the app used, and autovacuum (off while the run built them)
///    again; the indexes and constraints it keeps get an adopted tenant's names back, and the
///    comments they had; the retired tables keep no right of anyone's.
/// 6. The new version, a history row and the pins are recorded, as offline; commit.
struct OnlineCutover {
    let context: OnlineContext

    var connection: Connection { context.connection }
    var schemas: OnlineSchemas { context.schemas }
    var tenantRun: TenantRun { context.run }

    /// Runs the cutover; returns the statistics of every step run on the shadow.
    func run() throws -> StepStatistics {
        try context.retryingCutover(beforeRetry: ("catching up", { try context.retryingLocks { _ = try connection.transaction { _ in try context.round() } } })) {
            try cutover(attempt: $0, phases: &$1)
        }
    }

    private func cutover(attempt: Int, phases: inout CutoverPhases) throws -> StepStatistics {
        let clock = ContinuousClock()
        try TenantExecutor.setLockTimeout(context.settings.lockTimeout, on: connection)
        let live = context.liveTables
        try lock(live, .exclusive)
        phases.mark("writes locked")
        try context.preconditions.recheck(live, on: connection)
        let writesBlocked = clock.now
        let statistics = try context.catchUpLast(phases: &phases)
        try lock(live, .accessExclusive)
        let readsBlocked = clock.now
        phases.mark("reads locked")
        // Nothing the model does not define may depend on the tables the swap replaces; under this
        // lock nothing new can (OnlineDependents).
        try OnlineDependents.refuse(tenantRun.tenant, at: context.record.version, schema: schemas.tenant, on: connection)
        phases.mark("dependents checked")
        try swap(live: live, phases: &phases)
        try context.recordCutover(attempt: attempt, statistics: statistics, writesBlocked: writesBlocked, readsBlocked: readsBlocked, phases: &phases)
        return statistics
    }

    /// Locks `tables` in `mode`, in their fixed order, each wait bounded by `lock_timeout`.
    ///
    /// Unlike an offline migration's first locks, these wait while holding the tables before them:
    /// once writes wait on every table (EXCLUSIVE), the app's statements come back at once, and
    /// letting go of a table to wait for another would only let its queue in again, round after
    /// round. What waits meanwhile is bounded by `lock_timeout`: writes during the EXCLUSIVE
    /// locks, reads of an already locked table during the ACCESS EXCLUSIVE ones.
    ///
    /// A first stop of the fleet does not end these waits, as it ends those of a tenant that has
    /// not started: this tenant is in flight, and finishes; a second stop cancels it.
    private func lock(_ tables: [SQL], _ mode: TableLockMode) throws {
        try context.checkStop()
        _ = try connection.execute("LOCK TABLE \(tables, joinedBy: ", ") IN \(keyword: mode) MODE")
    }

    /// Moves the live tables out and the shadow's in, with their rights and sequences.
    private func swap(live: [SQL], phases: inout CutoverPhases) throws {
        try ChangeCapture.removeTriggers(from: live, on: connection)
        try connection.execute("DROP INDEX IF EXISTS \(schema: schemas.work, table: ShadowTables.archiveRowsIndex)")
        let source = context.plan.plan.source.relationalSchema()
        let destination = context.plan.plan.destination.relationalSchema()
        let archive = TenantArchive.tableName
        let liveArchive = try TenantArchive.exists(inSchema: schemas.tenant, on: connection)
        let shadowArchive = try TenantArchive.exists(inSchema: schemas.work, on: connection)
        // An adopted tenant's own names of the indexes and constraints the swap keeps, read from the live tables.
        let adoptedNames = try context.plan.plan.adoptedNameRenames(liveSchema: schemas.tenant, newSchema: schemas.tenant, on: connection)
        try RetiredTables.create(schemas.retired, version: context.record.version, replacedBy: tenantRun.destination.name, on: connection)
        var moves: [Statement] = []
        for table in source.tables.map(\.name) + (liveArchive ? [archive] : []) {
            moves.append(Statement("ALTER TABLE \(schema: schemas.tenant, table: table) SET SCHEMA \(id: schemas.retired)"))
        }
        for table in destination.tables.map(\.name) + (shadowArchive ? [archive] : []) {
            moves.append(Statement("ALTER TABLE \(schema: schemas.work, table: table) SET SCHEMA \(id: schemas.tenant)"))
        }
        // Autovacuum, off while the run built the shadow's tables, is theirs again.
        for table in destination.tables.map(\.name) + (shadowArchive ? [archive] : []) {
            moves.append(Statement(ShadowTables.autovacuumReset(schema: schemas.tenant, table: table)))
        }
        try connection.pipeline(moves)
        if !adoptedNames.isEmpty { _ = try connection.pipeline(adoptedNames, schema: schemas.tenant) }
        phases.mark("tables moved")
        try swapModelObjects()
        phases.mark("enum types and sequences")
        // Rights and sequences: each table after the table its rows come from (as offline, where
        // that table would have been altered in place), else as a new table of the schema.
        let origins = OnlineLineage.tableOrigins(of: context.plan.plan), columnOrigins = OnlineLineage.columnOrigins(of: context.plan.plan)
        var kept: [(source: SQL, target: SQL)] = []
        for table in destination.tables {
            let old = origins[table.name].map { QualifiedTable(schema: schemas.retired, name: $0) }
            let new = QualifiedTable(schema: schemas.tenant, name: table.name)
            // (A serial key's sequence is the table's own as an identity's is: the same steps.)
            let identity = table.column(named: "id").map { $0.isIdentity || $0.generation == .serial } == true
            // Rights: the old table's where the new one is that table through the steps (a table a mapping
            // fills from it is a new one, as offline), each column's its own column's.
            let continued = columnOrigins[table.name]
            try TableGrants.carry(to: new, from: continued == nil ? nil : old, schema: schemas.tenant, hasIdentity: identity, columnOrigins: continued, on: connection)
            if identity { try TableGrants.advanceIdentity(of: new, past: old, on: connection) }
            if let old { kept.append((old.oid, new.oid)) }
            // The old one gives nothing more to a draw that waited for it (OnlineCutover+ModelObjects.swift).
            if identity, let old {
                try RetiredSequence.exhaust("pg_catalog.pg_get_serial_sequence(\(bind: old.text), 'id')::pg_catalog.regclass", on: connection)
            }
        }
        // The comments on the indexes and constraints each table kept (the model carries none).
        let comments = try ObjectComments.statements(for: kept, on: connection)
        if !comments.isEmpty { try connection.pipeline(comments.map { Statement($0) }) }
        if shadowArchive {
            let old = liveArchive ? QualifiedTable(schema: schemas.retired, name: archive) : nil
            try TableGrants.carry(to: QualifiedTable(schema: schemas.tenant, name: archive), from: old, schema: nil, hasIdentity: false, on: connection)
        }
        phases.mark("rights and identities")
        // Their rights carried over, the old tables keep none.
        try RetiredTables.revokeGrants(in: schemas.retired, on: connection)
        phases.mark("retired tables revoked")
    }
}

/// The table lock modes of an online run: SHARE ROW EXCLUSIVE to install the change capture;
/// EXCLUSIVE while the cutover applies the last changes (reads go on, writes wait); ACCESS
/// EXCLUSIVE for the swap.
enum TableLockMode: String, CaseIterable {
    case accessExclusive = "ACCESS EXCLUSIVE"
    case exclusive = "EXCLUSIVE"
    case shareRowExclusive = "SHARE ROW EXCLUSIVE"
}
