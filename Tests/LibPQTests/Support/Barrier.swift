import Foundation

/// Lets `parties` threads wait until all of them have arrived.
final class Barrier: @unchecked Sendable {
    private let condition = NSCondition()
    private let parties: Int
    private var arrived = 0

    init(parties: Int) { self.parties = parties }

    /// Blocks until every party has arrived; false if `timeout` seconds pass first.
    func arriveAndWait(timeout: TimeInterval) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: timeout)
        while arrived < parties {
            if !condition.wait(until: deadline) { return arrived >= parties }
        }
        return true
    }
}
