/// How many test databases may exist at once, so that the tests in flight never hold more
/// connections than the test server allows.
///
/// Swift Testing starts every test of the run at once; each holds its database's connections (a
/// migrator's pool, the CLI's, an app's) while it waits for a child process, a lock or a timeout.
/// With some 850 tests, the connections in flight at the run's busiest moment reached the server's
/// `max_connections` (1,000) in about one run of two, and whichever tests connected then failed
/// ("sorry, too many clients already"). Waiting for a slot before the database is made bounds
/// them; a test's own time bounds start inside its body, after its slot.
actor DatabaseSlots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) {
        free = count
    }

    /// Takes a slot, waiting for one in the order asked.
    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Gives a slot back, to the first waiting test if there is one.
    func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}
