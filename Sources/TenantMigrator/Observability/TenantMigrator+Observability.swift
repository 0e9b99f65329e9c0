import Instrumentation
import Metrics
import Tracing

extension TenantMigrator {
    /// Where the migrator's metrics and spans go.
    ///
    /// By default both go to the process-wide systems: swift-metrics' `MetricsSystem` and
    /// swift-distributed-tracing's `InstrumentationSystem`, looked up at each use, so an app that
    /// bootstraps them after creating the migrator is still heard. Until bootstrapped, both are no-ops.
    /// Inject a factory or a tracer to send one migrator's telemetry elsewhere (a test's
    /// `TestMetrics` and `InMemoryTracer`, say) without touching the global systems.
    ///
    /// The names of every metric and span are in ``MigratorMetrics`` and ``MigratorTracing``.
    public struct Observability: Sendable {
        /// The metrics factory; nil for `MetricsSystem.factory`.
        public var metrics: (any MetricsFactory)?
        /// The tracer; nil for `InstrumentationSystem.tracer`.
        public var tracer: (any Tracer)?

        public init(metrics: (any MetricsFactory)? = nil, tracer: (any Tracer)? = nil) {
            self.metrics = metrics
            self.tracer = tracer
        }

        /// The factory metrics are made with now.
        var metricsFactory: any MetricsFactory { metrics ?? MetricsSystem.factory }

        /// The tracer spans are started with now.
        var activeTracer: any Tracer { tracer ?? InstrumentationSystem.tracer }
    }
}
