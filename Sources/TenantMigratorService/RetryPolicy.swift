/// How ``TenantMigratorService`` retries, in the background, the tenants its boot pass left behind.
///
/// A tenant held by a lock, not reached before the deadline, or failed for a transient reason is
/// retried after ``initialDelay``, then after twice that, and so on up to ``maximumDelay`` (each
/// delay drawn from [half, all] of its value, so that several app instances spread out). A
/// deterministic failure (see ``TenantMigratorService/Failure/isDeterministic``) would fail the same
/// way again, so it is retried only every ``deterministicInterval`` (nil: never; it stays reported
/// until the process restarts), which picks it up once an operator has fixed its cause without
/// restarting the app.
public struct RetryPolicy: Sendable, Hashable {
    /// The delay before a tenant's first retry.
    public var initialDelay: Duration
    /// The longest delay between two retries of one tenant.
    public var maximumDelay: Duration
    /// How often a deterministic failure is tried again; nil for never.
    public var deterministicInterval: Duration?

    public init(initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(60), deterministicInterval: Duration? = .seconds(600)) {
        self.initialDelay = initialDelay
        self.maximumDelay = max(initialDelay, maximumDelay)
        self.deterministicInterval = deterministicInterval
    }

    /// The delay before retry number `retry` (1 for the first), with jitter.
    func delay(beforeRetry retry: Int) -> Duration {
        let exponential = min(maximumDelay, initialDelay * Int(1 << min(max(retry - 1, 0), 30)))
        return exponential / 2 + exponential / 2 * Double.random(in: 0...1)
    }
}
