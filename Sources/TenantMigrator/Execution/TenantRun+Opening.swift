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
/// 4. when the version the tenant is expected at is known (the fleet's catalog query read it), the
///    tables of that version, locked `NOWAIT` in a savepoint: when they are busy, or the tenant
///    turns out to be elsewhere, the savepoint is rolled back and the runner locks as usual;
/// 5. what is known of the tenant's schema (``TenantSchemaFacts``: foreign triggers, rules and
///    forced row security, tables another role owns, the archive). Read after the tables' lock,
///    since what others attach to them is judged by it: when step 4 did not lock the tables the
///    tenant migrates from, the runner reads them again with its lock (``TenantRun/lockedFacts(after:for:inSchema:)``).
extension TenantRun {
    /// What the first round trip found.
    struct Opening {
        let record: TenantRecord
        /// The facts, read after the tables of ``lockedVersion`` were locked (nil when step 4 failed).
        let facts: TenantSchemaFacts?
        /// The tables locked, when step 4 took them all.
        let lockedVersion: String?
    }

    /// Sends the first round trip (inside the attempt's transaction, whose `BEGIN` is still queued).
    func open() throws -> Opening {
        var pipeline = Pipeline()
        pipeline.add(try TenantExecutor.lockTimeoutAndTenantLock(settings.lockTimeout, tenant: tenant, catalog: catalog, on: connection))
        // Read in a savepoint unless the catalog is known to have pins (see ``TenantExecutor/catalogIsCurrent``).
        let fallsBack = !executor.catalogIsCurrent
        if fallsBack { pipeline.add(Statement("SAVEPOINT tm_record")) }
        let recordStatement = pipeline.add(catalog.lockedRecordStatement(tenant))
        if fallsBack { pipeline.add(Statement("RELEASE SAVEPOINT tm_record")) }
        var tablesLock: Pipeline.Handle?
        let expectedTables = expectation.map { TenantExecutor.tablesToLock(of: $0.version, inSchema: $0.schema) } ?? []
        if !expectedTables.isEmpty {
            pipeline.add(Statement("SAVEPOINT tm_tables"))
            tablesLock = pipeline.add(Statement(TenantExecutor.lockStatement(expectedTables, wait: false)))
            pipeline.add(Statement("RELEASE SAVEPOINT tm_tables"))
        }
        let factsStatement = pipeline.add(TenantSchemaFacts.statement(of: tenant, in: catalog, family: family))
        let outcome = try executor.waitingForLocks(connection) { try connection.pipelineUntilFailure(pipeline) }
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
        guard let records = outcome[recordStatement] else {
            // The record's statement failed: a catalog from before pins (a real error is thrown by the fallback).
            try connection.script("ROLLBACK TO SAVEPOINT tm_record")
            try connection.sendWithNextRoundTrip(Statement("RELEASE SAVEPOINT tm_record"))
            let record = try catalog.requireTenant(tenant, on: connection, forUpdate: true)
            if try catalog.isHeldByOnlineRun(tenant, on: connection) { throw TenantHeldOnline(tenant: tenant) }
            return Opening(record: record, facts: nil, lockedVersion: nil)
        }
        guard let row = records.first else { throw TenantMigratorError.unknownTenant(tenant) }
        if try row.decode(Bool.self, column: "held_online") { throw TenantHeldOnline(tenant: tenant) }
        let record = try TenantRecord(row: row)
        let facts = try outcome[factsStatement].map(TenantSchemaFacts.init)
        guard let expectation, record.schema == expectation.schema else {
            return Opening(record: record, facts: facts, lockedVersion: nil)
        }
        if lockFailed, let failure = outcome.failure, record.version == expectation.version.name, !(SQLState.lockNotAvailable ~= failure) {
            // The tables of the tenant's very version could not be locked for another reason than a wait.
            throw failure
        }
        return Opening(record: record, facts: facts, lockedVersion: tablesLock != nil && !lockFailed ? expectation.version.name : nil)
    }

    /// Locks the tables `plan` migrates from in `schema`, unless the opening did, and returns the
    /// facts of the tenant's schema as they are once they are locked: the opening's, when it read
    /// them after locking those very tables, else read in the same round trip as the lock.
    func lockedFacts(after opening: Opening, for plan: MigrationPlan, inSchema schema: String) throws -> TenantSchemaFacts {
        if opening.lockedVersion == plan.source.name, let facts = opening.facts { return facts }
        return try executor.waitingForLocks(connection) {
            try TenantSchemaFacts.lockingTables(of: plan.source, tenant: tenant, schema: schema, catalog: catalog, family: family, on: connection)
        }
    }
}

/// What the runner must know of a tenant's schema before it migrates it, read by one query
/// (sent in the attempt's first round trip, after the tables' lock): the triggers and rules the
/// model did not create and forced row security (``ForeignHooks``), tables another role owns, whether the tenant has an archive yet (and that it is the migrator's own
/// table, ``ForeignArchive``), whether another role owns the schema, and whether default
/// privileges apply to tables created in its schema.
struct TenantSchemaFacts {
    /// Enabled user triggers and rules on the schema's tables, and row security forced on them
    /// where it would apply to the migrator, by table and name.
    var hooks: [ForeignHooks.Hook] = []
    /// The schema's tables that a role other than the migrator and the superusers owns, or that
    /// have a column of a type such a role owns (each as "table (role)"): that role may attach code
    /// to them (a check, a default, an index, a domain's check) at any time, so what they use is
    /// checked before every migration (``ExpressionTrust/requireTrustedTenant(at:inSchema:always:on:)``).
    var untrustedOwners: [String] = []
    /// Tables that inherit from the schema's tables, and tables they inherit from (a partition's
    /// parent included) (``InheritingTables``).
    var inheritingTables: [InheritingTables.Child] = []
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
    /// The session's `session_replication_role`, when it is not `origin` (``ReplicationRole``).
    var replicationRole: String?

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
                SELECT c.oid, c.relowner, c.relforcerowsecurity, pg_catalog.format('%I.%I', n.nspname, c.relname) AS qualified
                FROM tenant CROSS JOIN (VALUES \(names)) AS t(name)
                JOIN pg_catalog.pg_class AS c ON c.oid = pg_catalog.to_regclass(pg_catalog.format('%I.%I', tenant.schema_name, t.name))
                JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
                WHERE t.name IS NOT NULL
            ),
            trusted AS (SELECT r.oid FROM pg_catalog.pg_roles AS r WHERE r.rolsuper OR r.rolname = CURRENT_USER)
            SELECT 'trigger'::pg_catalog.text, t.oid::pg_catalog.int8, t.tgname::pg_catalog.text, t.tgenabled::pg_catalog.text,
                   tables.qualified, NULL::pg_catalog.bool
            FROM tables JOIN pg_catalog.pg_trigger AS t ON t.tgrelid = tables.oid
            WHERE NOT t.tgisinternal AND t.tgenabled <> 'D'
            UNION ALL
            SELECT 'rule', r.oid::pg_catalog.int8, r.rulename::pg_catalog.text, r.ev_enabled::pg_catalog.text, tables.qualified, NULL
            FROM tables JOIN pg_catalog.pg_rewrite AS r ON r.ev_class = tables.oid
            WHERE r.rulename <> '_RETURN' AND r.ev_enabled <> 'D'
            UNION ALL
            SELECT 'forced row security', tables.oid::pg_catalog.int8, '', 'O', tables.qualified, NULL
            FROM tables
            WHERE tables.relforcerowsecurity
                AND NOT EXISTS (SELECT FROM pg_catalog.pg_roles AS r WHERE r.rolname = CURRENT_USER AND (r.rolsuper OR r.rolbypassrls))
            UNION ALL
            SELECT 'untrusted owner', 0, pg_catalog.pg_get_userbyid(tables.relowner)::pg_catalog.text, NULL, tables.qualified, NULL
            FROM tables WHERE tables.relowner NOT IN (SELECT oid FROM trusted)
            UNION ALL
            SELECT 'untrusted owner', 0, pg_catalog.pg_get_userbyid(ty.typowner)::pg_catalog.text, NULL, tables.qualified, NULL
            FROM tables
            JOIN pg_catalog.pg_attribute AS a ON a.attrelid = tables.oid AND a.attnum > 0 AND NOT a.attisdropped
            JOIN pg_catalog.pg_type AS ty ON ty.oid = a.atttypid
            WHERE ty.typowner NOT IN (SELECT oid FROM trusted)
            UNION ALL
            SELECT 'inheriting table', 0, pg_catalog.format('%I.%I', kn.nspname, k.relname), pg_catalog.pg_get_userbyid(k.relowner)::pg_catalog.text,
                   tables.qualified, NULL
            FROM tables JOIN pg_catalog.pg_inherits AS i ON i.inhparent = tables.oid
            JOIN pg_catalog.pg_class AS k ON k.oid = i.inhrelid JOIN pg_catalog.pg_namespace AS kn ON kn.oid = k.relnamespace
            UNION ALL
            SELECT 'inherited table', 0, pg_catalog.format('%I.%I', pn.nspname, p.relname), pg_catalog.pg_get_userbyid(p.relowner)::pg_catalog.text,
                   tables.qualified, NULL
            FROM tables JOIN pg_catalog.pg_inherits AS i ON i.inhrelid = tables.oid
            JOIN pg_catalog.pg_class AS p ON p.oid = i.inhparent JOIN pg_catalog.pg_namespace AS pn ON pn.oid = p.relnamespace
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
            UNION ALL
            SELECT 'replication role', 0, pg_catalog.current_setting('session_replication_role'), NULL, NULL, NULL
            WHERE pg_catalog.current_setting('session_replication_role') <> 'origin'
            ORDER BY 1, 5, 3
            """, ([tenant.rawValue, TenantArchive.tableName] + tables).map { $0 as (any PQEncodable)? }).preparedPerConnection()
    }

    /// Locks the tables of `version` in `schema` (``TenantExecutor/lockTables(_:then:on:)``) and
    /// reads the facts of `tenant`'s schema in the same round trip, once nothing can change them.
    static func lockingTables(of version: ModelVersion, tenant: TenantName, schema: String, catalog: TenantCatalog, family: ModelFamily,
                              on connection: Connection) throws -> TenantSchemaFacts {
        let statement = statement(of: tenant, in: catalog, family: family)
        let facts = try TenantExecutor.lockTables(TenantExecutor.tablesToLock(of: version, inSchema: schema), then: statement, on: connection)
        return try TenantSchemaFacts(try facts ?? connection.execute(statement))
    }

    /// Refuses `tenant` when what the facts show keeps its migration from being safe, whatever the
    /// step: a session under a replication role (``ReplicationRole``), or inheritance between its
    /// tables and others (``InheritingTables``).
    func requireMigratable(_ tenant: TenantName) throws {
        if let replicationRole { throw ReplicationRole(tenant: tenant, role: replicationRole) }
        if !inheritingTables.isEmpty { throw InheritingTables(tenant: tenant, children: inheritingTables) }
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
            case "replication role":
                replicationRole = try row.decode(String.self, at: 2)
            case "inheriting table":
                inheritingTables.append(InheritingTables.Child(
                    table: try row.decode(String.self, at: 2), owner: try row.decode(String.self, at: 3), parent: try row.decode(String.self, at: 4)
                ))
            case "inherited table":
                inheritingTables.append(InheritingTables.Child(
                    table: try row.decode(String.self, at: 4), owner: try row.decode(String.self, at: 3), parent: try row.decode(String.self, at: 2),
                    tenantsIsChild: true
                ))
            case "untrusted owner":
                untrustedOwners.append("\(try row.decode(String.self, at: 4)) (\(try row.decode(String.self, at: 2)))")
            case let kind:
                guard let kind = ForeignHooks.Hook.Kind(rawValue: kind) else { continue }
                hooks.append(ForeignHooks.Hook(
                    kind: kind, oid: UInt32(try row.decode(Int64.self, at: 1)), name: try row.decode(String.self, at: 2),
                    mode: try row.decode(String.self, at: 3), table: try row.decode(String.self, at: 4)
                ))
            }
        }
    }

}
