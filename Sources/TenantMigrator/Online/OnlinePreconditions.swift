import EntityModel
import LibPQ
import MigrationEngine

/// What a tenant must be for an online migration, checked before anything is touched. The shadow
/// is built from the model and its tables replace the live ones, so:
///
/// - the live tables must be what the model of the tenant's version says (`verify` clean): a
///   column the model does not know would not be copied;
/// - no trigger, view, rule or row security policy of someone else's may hang on them, nor, from
///   any schema, a view, rule, foreign key, inheriting table or use of their row types
///   (``OnlineDependents``, checked again under the cutover's lock): it would stay with the old tables;
/// - the migrator must own the tenant's schema, and no other role may create objects in it: the
///   schema's owner may drop any table in it, so it could swap a live table for a view of its own
///   while the run copies it (the copy would run the view's code with the migrator's rights), and a
///   role that may create objects could plant one under a name the run is about to use. With the
///   schema the migrator's alone, nothing the run checked here can change under it later;
/// - the migrator must own every table: an owner can switch a table's triggers off, and with them
///   the change capture;
/// - the migrator's session must run with `session_replication_role = origin`, as offline
///   (``ReplicationRole``): under `replica` the shadow's foreign keys would go unchecked while the
///   build and catch-up write it. It is refused rather than pinned: only a superuser (or a role
///   granted `SET` on it) may set it, even back to `origin`. The app's sessions may run under any
///   role: the capture's triggers are `ENABLE ALWAYS`;
/// - on Citus, what the run inside the tenant's schema cannot swap yet (``citusRefusal``,
///   OnlinePreconditions+Citus.swift; docs/Citus.md).
struct OnlinePreconditions {
    let plan: MigrationPlan
    let schemas: OnlineSchemas
    let tenant: TenantName

    private func refuse(_ reason: String) -> TenantRun.Refusal {
        TenantRun.Refusal(error: OnlineRefusal(tenant: tenant, reason: reason))
    }

    func check(on connection: Connection) throws {
        if let role = try ReplicationRole.of(connection) { throw TenantRun.Refusal(error: ReplicationRole(tenant: tenant, role: role)) }
        if try connection.capabilities.swapsShadowsInByRenames, let reason = citusRefusal {
            throw TenantRun.Refusal(error: OnlineRefusal(tenant: tenant, reason: reason, sqlState: "0A000"))  // feature_not_supported
        }
        if let reason = try schemaRefusal(on: connection) { throw refuse(reason) }
        if let reason = try sequenceRefusal(on: connection) { throw refuse(reason) }
        if let reason = try enumRefusal(on: connection) { throw refuse(reason) }
        if let reason = keyRefusal { throw refuse(reason) }
        if let reason = try distinctRerunRefusal(on: connection) { throw refuse(reason) }
        let expected = try SchemaSnapshot.expected(for: plan.source, on: connection)
        let live = try SchemaSnapshot.read(schema: schemas.tenant, on: connection)
        let differences = live.differences(from: expected)
        if let first = differences.first {
            throw refuse("its tables differ from its model version \(plan.source.name) (\(first)\(differences.count > 1 ? ", and \(differences.count - 1) more" : "")); "
                + "the shadow is built from the model, so what the model does not know would be lost. `verify` lists the differences; migrate it offline, or fix them")
        }
        let bound = try ForeignObject.inventory(inSchema: schemas.tenant, on: connection).filter {
            ["trigger", "view", "materialized view", "rule", "policy"].contains($0.kind)
                && !$0.name.hasSuffix("." + ChangeCapture.rowTrigger) && !$0.name.hasSuffix("." + ChangeCapture.truncateTrigger)
        }
        if let first = bound.first {
            throw refuse("\(first.kind) \(first.name) is not defined by the model and would stay with the old tables; drop it, or migrate the tenant offline")
        }
        // And from any schema: checked again under the cutover's lock.
        do {
            try OnlineDependents.refuse(tenant, at: plan.source.name, schema: schemas.tenant, on: connection)
        } catch let dependents as OnlineDependents {
            throw TenantRun.Refusal(error: dependents)
        }
        let owners = try connection.execute("""
            SELECT c.relname::pg_catalog.text, pg_catalog.pg_get_userbyid(c.relowner)::pg_catalog.text
            FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND c.relowner <> (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = CURRENT_USER)
            ORDER BY 1
            """ as SQL, [schemas.tenant])
        if let row = owners.first {
            throw refuse("table \(try row.decode(String.self, at: 0)) is owned by \(try row.decode(String.self, at: 1)), not by the migrator; "
                + "its owner could switch the change capture off. Migrate it offline, or `ALTER TABLE … OWNER TO` the migrator")
        }
    }

    /// Why the tenant's schema is not the migrator's alone (owned by `current_user`, and no other
    /// role may create objects in it), or nil when it is.
    private func schemaRefusal(on connection: Connection) throws -> String? {
        if let ownership = try OnlineSchemas.ownership(of: schemas.tenant, on: connection) {
            if !ownership.ownedByMigrator {
                return "its schema \(schemas.tenant) is owned by \(ownership.owner), not by the migrator; its owner could drop a table "
                    + "while the run copies it and put something of its own in its place. Migrate it offline, or `ALTER SCHEMA … OWNER TO` the migrator"
            }
            if !ownership.otherCreators.isEmpty {
                return "\(ownership.otherCreators) may create objects in its schema \(schemas.tenant), "
                    + "and so plant them under the names the run uses. Migrate it offline, or `REVOKE CREATE ON SCHEMA` from them"
            }
        }
        return nil
    }

    /// What must still hold at a later phase, checked under the locks that phase holds on the live
    /// `tables` (qualified and quoted): the schema is the migrator's alone, and each table is still
    /// a table (`relkind` `r`) the migrator owns. Only a superuser could have changed either since
    /// ``check(on:)``; if one did, the phase fails (the run removes what it made) before it reads
    /// or moves anything.
    func recheck(_ tables: [SQL], on connection: Connection) throws {
        if let reason = try schemaRefusal(on: connection) { throw OnlineRefusal(tenant: tenant, reason: reason) }
        let names: [SQL] = tables.map { "(\(bind: $0.text(schema: schemas.tenant)))" }
        guard !names.isEmpty, let row = try connection.execute("""
            SELECT t.name, coalesce(c.relkind::pg_catalog.text, ''), coalesce(pg_catalog.pg_get_userbyid(c.relowner)::pg_catalog.text, '')
            FROM (VALUES \(names, joinedBy: ", ")) AS t(name) LEFT JOIN pg_catalog.pg_class AS c ON c.oid = pg_catalog.to_regclass(t.name)
            WHERE c.oid IS NULL OR c.relkind <> 'r' OR pg_catalog.pg_get_userbyid(c.relowner) <> CURRENT_USER
            ORDER BY 1 LIMIT 1
            """).first else { return }
        let kind = try row.decode(String.self, at: 1)
        let now = kind.isEmpty ? "gone" : "now a \(ForeignArchive.kindName(kind)) owned by \(try row.decode(String.self, at: 2))"
        throw OnlineRefusal(tenant: tenant, reason: "\(try row.decode(String.self, at: 0)) is \(now) since the run checked it; the run stops before it reads or moves it")
    }
}
