import EntityModel
import LibPQ
import MigrationEngine
import TypedSQL

/// The first round trip of an attempt: everything the runner needs before it can plan, sent as one
/// pipeline behind the transaction's `BEGIN`:
///
/// 1. `lock_timeout` and 2. the tenant's lock, its catalog row `FOR UPDATE`, in one statement (on
///    Citus, ``TenantExecutor/setLockTimeout(_:on:)``'s statements, then the lock);
/// 3. its catalog record, `FOR UPDATE`, in a savepoint (a catalog from before pins, which trial runs
///    never upgrade, fails there and is read again without the pin columns), or without one in a
///    fleet run that installed the catalog itself; with it, whether a live online run of another
///    session holds the tenant (``OnlineLease``), which makes the attempt wait like a busy lock;
/// 4. what is known of the tenant's schema (``TenantSchemaFacts``: foreign triggers, the archive);
/// 5. when the version the tenant is expected at is known (the fleet's catalog query read it), the
///    tables of that version, locked `NOWAIT` in a savepoint: when they are busy, or the tenant
///    turns out to be elsewhere, the savepoint is rolled back and the runner locks as usual.
extension TenantRun {
    /// What the first round trip found.
    struct Opening {
        let record: TenantRecord
        let facts: TenantSchemaFacts
        /// The tables locked, when step 5 took them all.
        let lockedVersion: String?
    }

    /// Sends the first round trip (inside the attempt's transaction, whose `BEGIN` is still queued).
    func open() throws -> Opening {
        var pipeline = Pipeline()
        pipeline.add(try TenantExecutor.lockTimeoutAndTenantLock(settings.lockTimeout, tenant: tenant, catalog: catalog, on: connection))
        // Read in a savepoint unless the catalog is known to have pins (see ``TenantExecutor/catalogIsCurrent``).
        let fallsBack = !runner.catalogIsCurrent
        if fallsBack { pipeline.add(Statement("SAVEPOINT tm_record")) }
        let recordStatement = pipeline.add(catalog.lockedRecordStatement(tenant))
        if fallsBack { pipeline.add(Statement("RELEASE SAVEPOINT tm_record")) }
        let factsStatement = pipeline.add(TenantSchemaFacts.statement(of: tenant, in: catalog, family: family))
        var tablesLock: Pipeline.Handle?
        let expectedTables = expectation.map { TenantExecutor.tablesToLock(of: $0.version, inSchema: $0.schema) } ?? []
        if !expectedTables.isEmpty {
            pipeline.add(Statement("SAVEPOINT tm_tables"))
            tablesLock = pipeline.add(Statement(TenantExecutor.lockStatement(expectedTables, wait: false)))
            pipeline.add(Statement("RELEASE SAVEPOINT tm_tables"))
        }
        let outcome = try runner.waitingForLocks(connection) { try connection.pipelineUntilFailure(pipeline) }
        let lockFailed = tablesLock.map(outcome.failed(at:)) ?? false
        let recordFailed = outcome.failed(at: recordStatement)
        if let failure = outcome.failure, !(recordFailed && fallsBack), !lockFailed { throw failure }
        if lockFailed {
            // Busy tables, or not the tables the tenant has now: let go of them; the runner locks as usual.
            // At once: the attempt may end here (the tenant turned out current, the tables still held by
            // the runner that just moved it), and a transaction left aborted until its COMMIT fails.
            try connection.script("ROLLBACK TO SAVEPOINT tm_tables")
            try connection.sendWithNextRoundTrip(Statement("RELEASE SAVEPOINT tm_tables"))
        }
        guard let records = outcome[recordStatement], let factsResult = outcome[factsStatement] else {
            // The record's statement failed: a catalog from before pins (a real error is thrown by the fallback).
            try connection.script("ROLLBACK TO SAVEPOINT tm_record")
            try connection.sendWithNextRoundTrip(Statement("RELEASE SAVEPOINT tm_record"))
            let record = try catalog.requireTenant(tenant, on: connection, forUpdate: true)
            if try catalog.isHeldByOnlineRun(tenant, on: connection) { throw TenantHeldOnline(tenant: tenant) }
            let facts = try TenantSchemaFacts(try connection.execute(TenantSchemaFacts.statement(of: tenant, in: catalog, family: family)))
            return Opening(record: record, facts: facts, lockedVersion: nil)
        }
        guard let row = records.first else { throw TenantMigratorError.unknownTenant(tenant) }
        if try row.decode(Bool.self, column: "held_online") { throw TenantHeldOnline(tenant: tenant) }
        let record = try TenantRecord(row: row)
        let facts = try TenantSchemaFacts(factsResult)
        guard let expectation, record.schema == expectation.schema else {
            return Opening(record: record, facts: facts, lockedVersion: nil)
        }
        if lockFailed, let failure = outcome.failure, record.version == expectation.version.name, !(SQLState.lockNotAvailable ~= failure) {
            // The tables of the tenant's very version could not be locked for another reason than a wait.
            throw failure
        }
        return Opening(record: record, facts: facts, lockedVersion: tablesLock != nil && !lockFailed ? expectation.version.name : nil)
    }
}

/// What the runner must know of a tenant's schema before it migrates it, read by one query
/// (sent in the attempt's first round trip): the triggers the model did not create
/// (``ForeignTriggers``), whether the tenant has an archive yet (and that it is the migrator's own
/// table, ``ForeignArchive``), whether another role owns the schema, and whether default
/// privileges apply to tables created in its schema.
struct TenantSchemaFacts {
    /// Enabled user triggers on the schema's tables, by table and name.
    var triggers: [ForeignTriggers.Trigger] = []
    /// Whether `_tm_archive` exists in the schema (it is then the migrator's own table).
    var hasArchive = false
    /// Whether it has this release's columns (``TenantArchive/latestColumn``).
    var archiveIsCurrent = false
    /// Whether a role other than the migrator (`current_user`) owns the schema.
    var schemaHasOtherOwner = false
    /// Whether default privileges (`ALTER DEFAULT PRIVILEGES`, of any role, for the schema or for
    /// all schemas) apply to tables created in the schema: an archive created there must then have
    /// what they grant revoked.
    var mayHaveDefaultPrivileges = false

    /// The one query, for the schema the catalog records for `tenant` (so it can go out in the same
    /// pipeline as the read of the record), and the tables of `family` (any version's) there: each
    /// found by name and its triggers by table, on the system catalogs' indexes, so the query costs
    /// the same however many tenants (and tables) the database holds.
    ///
    /// The table names are one parameter each (`VALUES ($3), ($4), …`), not an array: the planner
    /// then counts them alike with and without their values, so after its first custom plans the
    /// prepared statement keeps a generic one (an `unnest` of an array parameter counts as 100
    /// rows without its value, which kept the planner making a custom plan, 0.8 ms, for every tenant).
    static func statement(of tenant: TenantName, in catalog: TenantCatalog, family: ModelFamily) -> Statement {
        let tables = Set(family.versions.flatMap { $0.relationalSchema().tables.map(\.name) }).sorted()
        let names: SQL = tables.isEmpty ? "(NULL::pg_catalog.text)"
            : tables.indices.map { "($\(int: $0 + 3)\($0 == 0 ? "::pg_catalog.text)" : ")" as SQL)" }.joined(separator: ", ")
        return Statement("""
            WITH tenant AS (SELECT schema_name FROM \(catalog.table("tenants")) WHERE name = $1),
            tables AS (
                SELECT pg_catalog.to_regclass(pg_catalog.format('%I.%I', tenant.schema_name, t.name)) AS oid
                FROM tenant, (VALUES \(names)) AS t(name) WHERE t.name IS NOT NULL
            )
            SELECT 'trigger'::pg_catalog.text, t.oid::pg_catalog.int8, t.tgname::pg_catalog.text, t.tgenabled::pg_catalog.text,
                   pg_catalog.format('%I.%I', n.nspname, c.relname), NULL::pg_catalog.bool
            FROM tables
            JOIN pg_catalog.pg_trigger t ON t.tgrelid = tables.oid
            JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
            JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE NOT t.tgisinternal AND t.tgenabled <> 'D'
            UNION ALL
            SELECT 'archive', (SELECT pg_catalog.count(*) FROM pg_catalog.pg_attribute AS a WHERE a.attrelid = c.oid
                AND a.attname = \(literal: TenantArchive.latestColumn) AND NOT a.attisdropped), \(TenantArchive.ownershipSQL("c")) FROM tenant, pg_catalog.pg_class AS c
            WHERE c.oid = pg_catalog.to_regclass(pg_catalog.format('%I.%I', tenant.schema_name, $2::pg_catalog.text))
            UNION ALL
            SELECT 'schema owner', 0, NULL, NULL, NULL, NULL FROM tenant, pg_catalog.pg_namespace AS n
            WHERE n.nspname = tenant.schema_name AND pg_catalog.pg_get_userbyid(n.nspowner) <> CURRENT_USER
            UNION ALL
            SELECT 'default privileges', 0, NULL, NULL, NULL, NULL FROM tenant
            WHERE EXISTS (SELECT FROM pg_catalog.pg_default_acl AS d WHERE d.defaclobjtype = 'r' AND (d.defaclnamespace = 0
                          OR d.defaclnamespace = (SELECT n.oid FROM pg_catalog.pg_namespace AS n WHERE n.nspname = tenant.schema_name)))
            ORDER BY 1, 5, 3
            """, ([tenant.rawValue, TenantArchive.tableName] + tables).map { $0 as (any PQEncodable)? }).preparedPerConnection()
    }

    /// The facts ``statement(of:in:_:)`` returned.
    init(_ rows: QueryResult) throws {
        for row in rows {
            switch try row.decode(String.self, at: 0) {
            case "archive":
                try ForeignArchive.check(row, from: 2)
                hasArchive = true
                archiveIsCurrent = try row.decode(Int64.self, at: 1) > 0
            case "schema owner":
                schemaHasOtherOwner = true
            case "default privileges":
                mayHaveDefaultPrivileges = true
            default:
                triggers.append(ForeignTriggers.Trigger(
                    oid: UInt32(try row.decode(Int64.self, at: 1)), name: try row.decode(String.self, at: 2),
                    mode: try row.decode(String.self, at: 3), table: try row.decode(String.self, at: 4)
                ))
            }
        }
    }

}
