/// The spans TenantMigrator starts through swift-distributed-tracing, by name, with their attributes.
///
/// Nothing is recorded unless the app bootstraps `InstrumentationSystem` with a tracer (or injects
/// one through ``TenantMigrator/Observability``). The tenant span's parent is the caller's current
/// `ServiceContext` (a request span in a server app), captured by the facade before it hops to the
/// connection's thread; a fleet run's tenants all share the context of the `migrateAll` call.
public enum MigratorTracing {
    /// One tenant's migration, retries included: attributes ``Attribute/tenant``,
    /// ``Attribute/family``, ``Attribute/from``, ``Attribute/to``, ``Attribute/mode``, and when it
    /// ends ``Attribute/outcome`` and ``Attribute/attempts``. A failure is recorded as the span's
    /// error and status, with ``Attribute/sqlState`` when the server sent one; each lock retry is an
    /// event named ``lockRetryEvent``.
    public static let tenantSpan = "migrate tenant"

    /// Each step's span, a child of the tenant span: `step v1 → v2` (first and last version of the
    /// step; a fused step lists every version in ``Attribute/stepVersions``).
    public static func stepSpan(from source: String, to destination: String) -> String {
        "step \(source) → \(destination)"
    }

    /// The event added to the tenant span when an attempt is rolled back to be retried.
    public static let lockRetryEvent = "lock retry"

    /// The attribute names.
    public enum Attribute {
        public static let tenant = "tenant_migrator.tenant"
        public static let family = "tenant_migrator.family"
        /// The version the tenant was at (as read under its lock).
        public static let from = "tenant_migrator.from"
        /// The target version.
        public static let to = "tenant_migrator.to"
        /// ``MigrationRunMode``'s raw value.
        public static let mode = "tenant_migrator.mode"
        /// ``TenantMigrationResult/Outcome``'s raw value, or `interrupted` for a tenant a fleet stop
        /// caught before it changed anything.
        public static let outcome = "tenant_migrator.outcome"
        /// Transactions tried.
        public static let attempts = "tenant_migrator.attempts"
        /// The step that failed, on a failed tenant's span.
        public static let failedStep = "tenant_migrator.failed_step"
        /// `inferred` or `mapped`, on a step span.
        public static let stepKind = "tenant_migrator.step.kind"
        /// The versions a step walks through, first to last, on a step span.
        public static let stepVersions = "tenant_migrator.step.versions"
        /// The attempt a retry event follows, and its cause (`lock_timeout` or `deadlock`).
        public static let attempt = "tenant_migrator.attempt"
        public static let cause = "tenant_migrator.cause"
        /// The SQLSTATE of a failure (OpenTelemetry's database convention).
        public static let sqlState = "db.response.status_code"
    }
}
