import Foundation

/// A serial executor backed by one dedicated thread.
///
/// libpq calls block, so they must not run on Swift's cooperative thread pool, which has only as
/// many threads as cores. Each ``AsyncConnection`` runs its jobs on a thread of its own instead.
final class ConnectionThread: SerialExecutor, @unchecked Sendable {
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var head = 0
    private var isShuttingDown = false

    init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.stackSize = 4 << 20
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets the thread finish its queued jobs and exit.
    func shutdown() {
        condition.lock()
        isShuttingDown = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while head == jobs.count && !isShuttingDown { condition.wait() }
            if head == jobs.count {
                condition.unlock()
                return
            }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedSerialExecutor())
        }
    }
}
