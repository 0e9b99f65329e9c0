import Foundation
import Instrumentation
import LibPQ
import MigrationEngine
import Tracing

/// How the runner reports each tenant and step: a span around each, and their metrics.
///
/// The runner is synchronous and runs on a connection's thread, where no task-local context
/// exists unless the caller bound one: the tenant span's parent is `ServiceContext.current`, which
/// the facade and the fleet bind to the context they captured in async code. Inside the tenant span
/// the context is the tenant span's own, so each step span is its child.
extension TenantExecutor {
    /// Runs `body`, one tenant's migration, inside a ``MigratorTracing/tenantSpan``, and counts and
    /// times its outcome (``MigratorMetrics/tenantsTotal``, ``MigratorMetrics/tenantDuration``).
    func observingTenant(
        _ tenant: TenantName, to target: String, mode: MigrationRunMode, _ body: (any Span) throws -> TenantMigrationResult
    ) throws -> TenantMigrationResult {
        let started = ContinuousClock.now
        let family = planner.family.name
        let span = settings.observability.activeTracer.startSpan(MigratorTracing.tenantSpan, context: ServiceContext.current ?? .topLevel)
        defer { span.end() }
        span.attributes[MigratorTracing.Attribute.tenant] = tenant.rawValue
        span.attributes[MigratorTracing.Attribute.family] = family
        span.attributes[MigratorTracing.Attribute.to] = target
        span.attributes[MigratorTracing.Attribute.mode] = mode.rawValue
        do {
            let result = try ServiceContext.withValue(span.context) { try body(span) }
            span.attributes[MigratorTracing.Attribute.from] = result.fromVersion
            span.attributes[MigratorTracing.Attribute.outcome] = result.outcome.rawValue
            span.attributes[MigratorTracing.Attribute.attempts] = result.attempts
            settings.observability.recordTenant(result.outcome, family: family, mode: mode, duration: .since(started))
            return result
        } catch let error as TenantMigrationError where error.isInterruption {
            // Stopped before it changed anything: neither a success nor a failure.
            span.attributes[MigratorTracing.Attribute.from] = error.fromVersion
            span.attributes[MigratorTracing.Attribute.outcome] = "interrupted"
            span.attributes[MigratorTracing.Attribute.attempts] = error.attempts
            throw error
        } catch {
            if let failure = error as? TenantMigrationError {
                span.attributes[MigratorTracing.Attribute.from] = failure.fromVersion
                span.attributes[MigratorTracing.Attribute.attempts] = failure.attempts
                span.attributes[MigratorTracing.Attribute.failedStep] = failure.failedStep
            }
            span.attributes[MigratorTracing.Attribute.outcome] = TenantMigrationResult.Outcome.failed.rawValue
            Self.recordFailure(error, on: span)
            settings.observability.recordTenant(.failed, family: family, mode: mode, duration: .since(started))
            throw error
        }
    }

    /// Runs `body`, one step, inside its span (a child of the current context's span), and times it
    /// (``MigratorMetrics/stepDuration``) when it completes.
    func observingStep(_ step: MigrationStep, _ body: () throws -> StepStatistics) throws -> StepStatistics {
        let started = ContinuousClock.now
        let span = settings.observability.activeTracer.startSpan(
            MigratorTracing.stepSpan(from: step.source.name, to: step.destination.name), context: ServiceContext.current ?? .topLevel
        )
        defer { span.end() }
        span.attributes[MigratorTracing.Attribute.stepKind] = MigratorMetrics.kind(of: step)
        span.attributes[MigratorTracing.Attribute.stepVersions] = step.versions.map(\.name)
        do {
            let statistics = try ServiceContext.withValue(span.context) { try body() }
            settings.observability.recordStep(step, family: planner.family.name, duration: .since(started))
            return statistics
        } catch {
            Self.recordFailure(error, on: span)
            throw error
        }
    }

    /// An attempt lost a lock race and is retried: ``MigratorMetrics/lockRetriesTotal`` + 1 and a
    /// ``MigratorTracing/lockRetryEvent`` on the tenant's span.
    func observeLockRetry(after attempt: Int, deadlock: Bool, on span: any Span) {
        settings.observability.countLockRetry(family: planner.family.name, deadlock: deadlock)
        var attributes = SpanAttributes()
        attributes[MigratorTracing.Attribute.attempt] = attempt
        attributes[MigratorTracing.Attribute.cause] = deadlock ? "deadlock" : "lock_timeout"
        span.addEvent(SpanEvent(name: MigratorTracing.lockRetryEvent, attributes: attributes))
    }

    /// `error` on `span`: recorded, the span's status set to error, and its SQLSTATE when it has one.
    static func recordFailure(_ error: any Error, on span: any Span) {
        span.recordError(error)
        span.setStatus(SpanStatus(code: .error, message: "\(error)"))
        if let state = SQLState.of(error) {
            span.attributes[MigratorTracing.Attribute.sqlState] = state.rawValue
        }
    }
}
