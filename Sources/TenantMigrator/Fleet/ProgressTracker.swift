/// Counts finished tenants and reports progress.
actor ProgressTracker {
    private let total: Int
    private var done = 0
    private var failed = 0
    private let started = ContinuousClock.now
    private let callback: (@Sendable (FleetProgress) -> Void)?

    init(total: Int, callback: (@Sendable (FleetProgress) -> Void)?) {
        self.total = total
        self.callback = callback
        callback?(FleetProgress(total: total, done: 0, failed: 0, elapsed: 0))
    }

    func record(failed isFailure: Bool) {
        done += 1
        if isFailure { failed += 1 }
        let elapsed = ContinuousClock.now - started
        callback?(FleetProgress(total: total, done: done, failed: failed,
                                elapsed: elapsed.inSeconds))
    }
}
