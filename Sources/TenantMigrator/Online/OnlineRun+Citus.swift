import LibPQ
import MigrationEngine

extension OnlineRun {
    /// The run on Citus, inside the tenant's schema (``InSchemaOnlineRun``): what an earlier run
    /// left goes first (its shadow's tables there would otherwise be checked with the tenant's),
    /// then the preconditions, then prepare, copy and the cutover. A failure before the commit is
    /// cleaned up by ``run()`` through `context`, as on plain PostgreSQL.
    func migrateInSchema(_ online: OnlinePlan, record: TenantRecord, schemas: OnlineSchemas, lease: OnlineLease, estimate: Int?,
                         context: inout OnlineContext?) throws -> TenantMigrationResult {
        let inSchemaLease = InSchemaLease(schema: schemas.tenant, naming: .citusShadow, holder: lease.value, duration: settings.online.citusLeaseDuration)
        let created = OnlineContext(run: tenantRun, plan: online, record: record, schemas: schemas,
                                    capture: ChangeCapture(schemas: schemas, inSchemaLease: inSchemaLease))
        created.keepsState = false
        created.shadowNaming = .citusShadow
        created.progress.estimatedRows = estimate
        try created.removeLeftovers()
        try OnlinePreconditions(plan: online.plan, schemas: schemas, tenant: tenant).check(on: connection)
        context = created
        created.log("migrating online on Citus, in the tenant's schema (\(online.kind.rawValue)): " + online.summary.joined(separator: "; "))
        let statistics = try InSchemaOnlineRun(context: created, lease: inSchemaLease).run()
        try created.checkpoint(.done)
        return migrated(created, statistics: statistics)
    }
}
