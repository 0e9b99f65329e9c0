import EntityModel
import Foundation
import InMemoryTracing
import LibPQ
import MetricsTestKit
import MigrationEngine
import PostgresTestSupport
import RecipesPolicies
import TenantMigrator
import TenantMigratorTestSupport
import Testing
import Tracing

/// Metrics and spans, through an injected `TestMetrics` and `InMemoryTracer` (never the global
/// systems: other suites run in the same process).
@Suite("Observability")
struct TenantExecutorObservabilityTests {
    /// A migrator over the Catalogue family whose telemetry goes to a fresh `TestMetrics` and
    /// `InMemoryTracer`, with three tenants: `current` at the latest version, `behind` at v1, and
    /// `poison` at v1 with two products sharing a code, so that making the code unique (v2 → v3)
    /// fails with 23505.
    func migratorWithTenants(_ conninfo: String) async throws -> (TenantMigrator, TestMetrics, InMemoryTracer) {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        var migrator = TenantMigrator(connectionString: conninfo, family: try fixtureFamily("Catalogue"))
        migrator.observability = TenantMigrator.Observability(metrics: metrics, tracer: tracer)
        try await migrator.createTenant("current")
        try await migrator.createTenant("behind", version: "v1")
        try await migrator.createTenant("poison", version: "v1")
        let connection = try Connection(conninfo)
        _ = try connection.fixtureScript("INSERT INTO tenant_poison.product (code, title) VALUES ('A1', 'first'), ('A1', 'duplicate')")
        return (migrator, metrics, tracer)
    }

    func tenants(_ metrics: TestMetrics, _ outcome: String, mode: String = "apply") -> Int64 {
        metrics.counterTotal(label: "tenant_migrator_tenants_total", dimensions: [("family", "Catalogue"), ("outcome", outcome), ("mode", mode)])
    }

    func attribute(_ span: FinishedInMemorySpan, _ name: String) -> SpanAttribute? { span.attributes.get(name) }

    @Test func eachTenantGetsASpanWithStepChildrenAndCountedOutcomes() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, metrics, tracer) = try await migratorWithTenants(conninfo)
            let steps = try migrator.plan(from: "v1", to: "v3").steps

            // As a server app would, inside a request span: the tenant spans must be its children.
            let requestSpanID = try await tracer.withSpan("request") { span in
                for name in ["current", "behind", "poison"] {
                    do {
                        _ = try await migrator.migrate(tenant: name)
                    } catch let error as TenantMigrationError {
                        #expect(name == "poison", "\(error)")
                        #expect(error.sqlState == .uniqueViolation)
                    }
                }
                return span.context.inMemorySpanContext!.spanID
            }

            #expect(tenants(metrics, "migrated") == 1)
            #expect(tenants(metrics, "alreadyCurrent") == 1)
            #expect(tenants(metrics, "failed") == 1)
            for outcome in ["migrated", "alreadyCurrent", "failed"] {
                let samples = metrics.timers(label: "tenant_migrator_tenant_duration", dimensions: [("family", "Catalogue"), ("outcome", outcome)])
                    .flatMap(\.values)
                #expect(samples.count == 1, "\(outcome): \(samples)")
            }

            let spans = tracer.finishedSpans
            let request = try #require(spans.first { $0.operationName == "request" })
            let tenantSpans = spans.filter { $0.operationName == MigratorTracing.tenantSpan }
            #expect(tenantSpans.count == 3)
            func tenantSpan(_ name: String) throws -> FinishedInMemorySpan {
                try #require(tenantSpans.first { attribute($0, "tenant_migrator.tenant") == .string(name) })
            }
            for span in tenantSpans {
                #expect(span.parentSpanID == requestSpanID)
                #expect(span.traceID == request.traceID)
                #expect(attribute(span, "tenant_migrator.family") == .string("Catalogue"))
                #expect(attribute(span, "tenant_migrator.to") == .string("v3"))
                #expect(attribute(span, "tenant_migrator.attempts") == .int64(1))
            }
            func stepSpans(of tenant: FinishedInMemorySpan) -> [FinishedInMemorySpan] {
                spans.filter { $0.parentSpanID == tenant.spanID }
            }

            let current = try tenantSpan("current")
            #expect(attribute(current, "tenant_migrator.outcome") == .string("alreadyCurrent"))
            #expect(attribute(current, "tenant_migrator.from") == .string("v3"))
            #expect(stepSpans(of: current).isEmpty)

            let behind = try tenantSpan("behind")
            #expect(attribute(behind, "tenant_migrator.outcome") == .string("migrated"))
            #expect(attribute(behind, "tenant_migrator.from") == .string("v1"))
            #expect(behind.errors.isEmpty && behind.status == nil)
            let behindSteps = stepSpans(of: behind)
            #expect(behindSteps.map(\.operationName) == steps.map { "step \($0.source.name) → \($0.destination.name)" })
            #expect(behindSteps.map { attribute($0, "tenant_migrator.step.kind") } == steps.map { _ in .string("inferred") })
            #expect(behindSteps.allSatisfy { $0.errors.isEmpty })

            let poison = try tenantSpan("poison")
            #expect(attribute(poison, "tenant_migrator.outcome") == .string("failed"))
            #expect(attribute(poison, "tenant_migrator.from") == .string("v1"))
            #expect(attribute(poison, "db.response.status_code") == .string("23505"))
            #expect(poison.errors.count == 1)
            #expect(poison.errors.first?.error is TenantMigrationError)
            #expect(poison.status?.code == .error)
            let poisonSteps = stepSpans(of: poison)
            let failedStep = try #require(poisonSteps.last)
            #expect(failedStep.errors.count == 1)
            #expect(failedStep.status?.code == .error)
            #expect(attribute(failedStep, "db.response.status_code") == .string("23505"))
            #expect(poisonSteps.dropLast().allSatisfy { $0.errors.isEmpty })

            // One step timer sample per step that ran to completion, each under its own versions.
            let stepSamples = metrics.timers(label: "tenant_migrator_step_duration").flatMap(\.values)
            #expect(stepSamples.count == steps.count + poisonSteps.count - 1)
            for step in steps {
                let timers = metrics.timers(label: "tenant_migrator_step_duration", dimensions: [
                    ("family", "Catalogue"), ("kind", "inferred"), ("from", step.source.name), ("to", step.destination.name),
                ])
                #expect(timers.flatMap(\.values).count >= 1)
            }
            #expect(metrics.counterTotal(label: "tenant_migrator_lock_retries_total") == 0)

            // The fast path: one more current tenant counted and timed, and no span.
            let spansBefore = tracer.finishedSpans.count
            #expect(try await migrator.migrateIfNeeded(tenant: "current").outcome == .alreadyCurrent)
            #expect(tenants(metrics, "alreadyCurrent") == 2)
            #expect(tracer.finishedSpans.count == spansBefore)
        }
    }

    @Test func aFleetRunCountsItsSkippedTenantsInOneIncrement() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let (migrator, metrics, tracer) = try await migratorWithTenants(conninfo)
            try await migrator.createTenant("current2")
            try await migrator.createTenant("current3")

            let deploySpanID = try await tracer.withSpan("deploy") { span in
                let report = try await migrator.migrateAll(jobs: 2)
                #expect(report.migrated == 1 && report.skipped == 3 && report.failed == 1)
                return span.context.inMemorySpanContext!.spanID
            }

            let skipped = try metrics.expectCounter("tenant_migrator_tenants_total", [("family", "Catalogue"), ("outcome", "alreadyCurrent"), ("mode", "apply")])
            #expect(skipped.values == [3])
            #expect(tenants(metrics, "migrated") == 1)
            #expect(tenants(metrics, "failed") == 1)
            // Only the two tenants the runner handled were timed and traced, as children of the deploy span.
            #expect(metrics.timers(label: "tenant_migrator_tenant_duration").flatMap(\.values).count == 2)
            let tenantSpans = tracer.finishedSpans.filter { $0.operationName == MigratorTracing.tenantSpan }
            #expect(tenantSpans.compactMap { attribute($0, "tenant_migrator.tenant") }.sorted { "\($0)" < "\($1)" } == [.string("behind"), .string("poison")])
            #expect(tenantSpans.allSatisfy { $0.parentSpanID == deploySpanID })

            // A dry run says so in the mode dimension.
            _ = try await migrator.migrateAll(jobs: 1, mode: .dryRun)
            #expect(tenants(metrics, "alreadyCurrent", mode: "dry-run") == 4)
            #expect(tenants(metrics, "failed", mode: "dry-run") == 1)
        }
    }

    @Test func aLockHeldBrieflyIsCountedAsARetry() async throws {
        try await TestPostgres.withDatabaseURL { conninfo in
            let metrics = TestMetrics()
            let tracer = InMemoryTracer()
            // Recipes v1 → v3: an inferred step, then a mapped one.
            var migrator = try TenantMigrator(connectionString: conninfo, familyDirectory: recipesDirectory, policies: RecipesPolicies.registry)
            migrator.observability = TenantMigrator.Observability(metrics: metrics, tracer: tracer)
            migrator.lockTimeout = .milliseconds(200)
            migrator.maxAttempts = 10
            try await migrator.createTenant("acme", version: "v1")

            // Another session holds a table, on a thread of its own, and lets go once the first
            // retry is counted (a release after a sleep on the shared task pool came, on a busy
            // machine, after all ten attempts).
            let holding = Locked(false), released = Locked(false)
            Thread {
                defer { released.withLock { $0 = true } }
                guard let holder = try? Connection(conninfo),
                      (try? holder.fixtureScript("BEGIN; LOCK TABLE tenant_acme.recipe IN ACCESS EXCLUSIVE MODE")) != nil else { return }
                holding.withLock { $0 = true }
                for _ in 0..<6_000 where ((try? metrics.expectCounter("tenant_migrator_lock_retries_total", [("family", "Recipes"), ("cause", "lock_timeout")]))?.totalValue ?? 0) == 0 {
                    usleep(10_000)
                }
                _ = try? holder.fixtureScript("ROLLBACK")
            }.start()
            try #require(try await waitUntil { holding.value || released.value } && holding.value)
            let result = try await migrator.migrate(tenant: "acme")
            #expect(try await waitUntil { released.value })

            #expect(result.outcome == .migrated)
            #expect(result.attempts > 1)
            let retries = try metrics.expectCounter("tenant_migrator_lock_retries_total", [("family", "Recipes"), ("cause", "lock_timeout")])
            #expect(retries.totalValue == Int64(result.attempts - 1))
            let span = try #require(tracer.finishedSpans.first { $0.operationName == MigratorTracing.tenantSpan })
            #expect(span.events.filter { $0.name == "lock retry" }.count == result.attempts - 1)
            #expect(span.attributes.get("tenant_migrator.attempts") == .int64(Int64(result.attempts)))

            // The steps ran once, in the attempt that got the locks: one span and one timer sample each.
            let steps = tracer.finishedSpans.filter { $0.parentSpanID == span.spanID }
            #expect(steps.map(\.operationName) == ["step v1 → v2", "step v2 → v3"])
            #expect(steps.map { $0.attributes.get("tenant_migrator.step.kind") } == [.string("inferred"), .string("mapped")])
            for (kind, from, to) in [("inferred", "v1", "v2"), ("mapped", "v2", "v3")] {
                let timers = metrics.timers(label: "tenant_migrator_step_duration", dimensions: [
                    ("family", "Recipes"), ("kind", kind), ("from", from), ("to", to),
                ])
                #expect(timers.flatMap(\.values).count == 1, "\(kind) \(from) → \(to)")
            }
        }
    }
}
