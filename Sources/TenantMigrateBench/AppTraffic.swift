import Foundation
import LibPQ

/// An app using one Recipes tenant while it migrates: a reader and a writer, each on its own
/// connection and thread, each issuing `rate` statements a second on a fixed schedule, with the
/// tenant's schema as `search_path` (as an app has it). Every statement is valid at v2 and at v3,
/// so the app goes on across the cutover. Each statement's latency is recorded: the worst is how
/// long the app waited.
final class AppTraffic: @unchecked Sendable {
    struct Report {
        var reads = 0, writes = 0
        var worstRead: Duration = .zero, worstWrite: Duration = .zero
        var errors: [String] = []
        /// Every statement: when it started, how long it took, whether it wrote (`--trace-waits`).
        var statements: [(started: ContinuousClock.Instant, took: Duration, writes: Bool)] = []
        /// The writes that committed, in order: replayed on a twin, they give it the same data
        /// (each is valid at v2 and v3, and they commute with the migration).
        var applied: [String] = []
    }

    private let conninfo: String
    private let schema: String
    private let rate: Double
    /// The tenant's rows: each statement picks a recipe and a recipe ingredient among their ids.
    private let data: RecipesData
    private let lock = NSCondition()
    private var running = false
    private var threads = 0
    private var report = Report()

    init(conninfo: String, schema: String, rate: Double, data: RecipesData) {
        self.conninfo = conninfo
        self.schema = schema
        self.rate = rate
        self.data = data
    }

    /// Starts the reader and the writer.
    func start() {
        lock.lock()
        running = true
        threads = 2
        lock.unlock()
        for writes in [false, true] {
            Thread { [self] in loop(writes: writes) }.start()
        }
    }

    /// Stops both and returns what they saw.
    func stop() -> Report {
        lock.lock()
        running = false
        while threads > 0 { lock.wait() }
        defer { lock.unlock() }
        return report
    }

    private func loop(writes: Bool) {
        defer { lock.lock(); threads -= 1; lock.broadcast(); lock.unlock() }
        let connection: Connection
        do {
            connection = try Connection(conninfo)
            try connection.setSearchPath([schema])
        } catch {
            lock.lock(); report.errors.append("connect: \(error)"); lock.unlock()
            return
        }
        var random = SplitMix64(seed: writes ? 0xA11CE : 0xB0B)
        let interval = Duration.seconds(1 / rate)
        var next = ContinuousClock.now
        var count = 0
        while true {
            lock.lock()
            let go = running
            lock.unlock()
            guard go else { return }
            let now = ContinuousClock.now
            if next > now { Thread.sleep(forTimeInterval: (next - now).inSeconds) }
            next += interval
            let recipe = Int(random.next() % UInt64(data.recipes)) + 1
            let ingredient = Int(random.next() % UInt64(data.ingredients)) + 1
            count += 1
            let sql = switch (writes, count % 2 == 0) {
            case (false, false): "SELECT count(*) FROM recipe_ingredient WHERE recipe_id = \(recipe)"
            case (false, true): "SELECT name, servings FROM recipe WHERE id = \(recipe)"
            case (true, false): "UPDATE recipe SET servings = coalesce(servings, 0) % 12 + 1 WHERE id = \(recipe)"
            case (true, true): "UPDATE recipe_ingredient SET quantity = coalesce(quantity, 0) + 1 WHERE id = \(ingredient)"
            }
            let started = ContinuousClock.now
            var failure: String?
            do { try connection.execute(unsafeSQL: sql) } catch { failure = "\(error)" }
            let elapsed = ContinuousClock.now - started
            lock.lock()
            report.statements.append((started, elapsed, writes))
            if writes {
                report.writes += 1
                if failure == nil { report.applied.append(sql) }
                report.worstWrite = max(report.worstWrite, elapsed)
            } else {
                report.reads += 1
                report.worstRead = max(report.worstRead, elapsed)
            }
            if let failure { report.errors.append("\(sql): \(failure)") }
            lock.unlock()
        }
    }
}
