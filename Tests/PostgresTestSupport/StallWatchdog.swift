import ChildProcesses
import Foundation
import LibPQ

/// Ends a test process that has stopped making progress, after saying where it stood.
///
/// A test that blocks a thread of the cooperative pool (two threads on the CI machine) while it
/// waits for something another task must do can stall the whole process: once every thread of the
/// pool waits so, no task runs again, and the run sits idle until CI's limit (it did once, for 80
/// minutes, with nothing printed). The watchdog runs on a thread of its own, outside the pool. It
/// counts test databases made and dropped (every test that touches PostgreSQL makes one); when
/// none was made or dropped for ``limit`` while some exist, it prints the server's sessions and
/// lock waits and every thread's stack (with gdb, where installed), and ends the process, so that
/// the run fails in minutes with what the next reader needs.
///
/// The limit is long: the longest test takes a few minutes on a busy machine, and while one runs,
/// others keep making and dropping databases.
final class StallWatchdog: Sendable {
    /// Databases in use and the time of the last change, behind a lock.
    private let state = Locked<(inUse: Int, lastChange: ContinuousClock.Instant)>((0, .now))
    private let limit: Duration
    private let adminConnectionString: String

    /// Starts watching (on a thread of its own) the server that `adminConnectionString` reaches.
    /// `TEST_STALL_WATCHDOG_SECONDS` sets another limit (to see the watchdog at work).
    init(adminConnectionString: String, limit: Duration = .seconds(20 * 60)) {
        self.adminConnectionString = adminConnectionString
        self.limit = ProcessInfo.processInfo.environment["TEST_STALL_WATCHDOG_SECONDS"].flatMap(Int.init).map { .seconds($0) } ?? limit
        let thread = Thread { [self] in watch() }
        thread.name = "test stall watchdog"
        thread.start()
    }

    /// A test database was made.
    func made() { state.withLock { $0 = ($0.inUse + 1, .now) } }

    /// A test database was dropped.
    func dropped() { state.withLock { $0 = ($0.inUse - 1, .now) } }

    private func watch() {
        while true {
            Thread.sleep(forTimeInterval: min(30, Double(limit.components.seconds) / 4))
            let (inUse, lastChange) = state.value
            guard inUse > 0, ContinuousClock.now - lastChange > limit else { continue }
            report(inUse: inUse)
            exit(70)
        }
    }

    private func report(inUse: Int) {
        var lines = ["", "test stall watchdog: no test database made or dropped for \(limit), \(inUse) in use; the process is stuck (a blocked cooperative pool?)"]
        do {
            let connection = try Connection(adminConnectionString)
            for query in [
                """
                SELECT pid, datname, state, wait_event_type, wait_event, (now() - query_start)::text, left(query, 160)
                FROM pg_catalog.pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_catalog.pg_backend_pid() ORDER BY query_start
                """,
                """
                SELECT l.pid, d.datname, l.locktype, l.relation::regclass::text, l.mode, pg_catalog.pg_blocking_pids(l.pid)::text
                FROM pg_catalog.pg_locks l LEFT JOIN pg_catalog.pg_database d ON d.oid = l.database WHERE NOT l.granted
                """,
            ] {
                let result = try connection.execute(unsafeSQL: query)
                for row in result {
                    lines.append((0..<result.columnCount).map { row[$0] ?? "" }.joined(separator: " | "))
                }
                lines.append("--")
            }
        } catch {
            lines.append("(the server could not be asked: \(error))")
        }
        var text = lines.joined(separator: "\n") + "\n"
        let gdb = "/usr/bin/gdb"
        if FileManager.default.isExecutableFile(atPath: gdb),
           let stacks = try? ChildProcess(gdb, ["-p", "\(getpid())", "-batch", "-ex", "thread apply all bt 30"]).wait() {
            text += stacks.output
        }
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
