import Metrics
import TenantMigrator
import Tracing

/// Once, at startup, before the first migration: any swift-metrics backend (swift-prometheus, …)
/// and any tracer (swift-otel, …). Until then, the migrator's metrics and spans are no-ops.
func bootstrapObservability(metrics: any MetricsFactory, tracer: any Tracer) {
    MetricsSystem.bootstrap(metrics)
    InstrumentationSystem.bootstrap(tracer)
}

/// One migrator's telemetry sent elsewhere (a test's `TestMetrics` and `InMemoryTracer`, or a
/// second backend), the process-wide systems untouched.
func observed(_ migrator: TenantMigrator, metrics: any MetricsFactory, tracer: any Tracer) -> TenantMigrator {
    var migrator = migrator
    migrator.observability = TenantMigrator.Observability(metrics: metrics, tracer: tracer)
    return migrator
}
