import Dispatch
import Foundation
import LibPQ
import Logging
import PostgresTestSupport
import TenantMigrator

/// A session that draws from a tenant's sequence while an online cutover holds it (the sequence
/// moved out and its position read, the commit not yet made): set ``checkpoint`` as the run's
/// checkpoint; at `.cutoverSwapped` it starts the draw on a connection of its own and lets the
/// cutover go on once that session waits for the sequence (bounded, not timed). After the run,
/// ``outcome()`` says what the draw took.
public final class DrawDuringCutover: Sendable {
    let conninfo: String
    /// The sequence drawn from, qualified (`tenant_acme.part_seq`).
    let sequence: String
    let logger: Logger
    private let drawn = Locked<String?>(nil)
    private let sawItWait = Locked(false)
    private let done = DispatchSemaphore(value: 0)

    public init(conninfo: String, sequence: String, logger: Logger = Logger(label: "LibPQ")) {
        self.conninfo = conninfo
        self.sequence = sequence
        self.logger = logger
    }

    /// The checkpoint to set in the online settings.
    public var checkpoint: @Sendable (OnlineCheckpoint) throws -> Void {
        { [self] checkpoint in
            guard checkpoint.phase == .cutoverSwapped else { return }
            Thread.detachNewThread { [self] in
                defer { done.signal() }
                do {
                    let app = try Connection(conninfo, logger: logger)
                    let value = try app.scalar("SELECT nextval('\(sequence)')", as: Int64.self)
                    drawn.withLock { $0 = String(value) }
                } catch {
                    drawn.withLock { $0 = "failed: \(error)" }
                }
            }
            let watcher = try Connection(conninfo, logger: logger)
            let deadline = ContinuousClock.now + .seconds(120)
            while ContinuousClock.now < deadline {
                let waiting = try watcher.scalar("""
                    SELECT count(*)::int FROM pg_locks WHERE NOT granted AND relation = to_regclass('\(sequence)')
                    """, as: Int.self)
                if waiting > 0 { sawItWait.withLock { $0 = true }; return }
                usleep(5_000)
            }
        }
    }

    /// Waits for the drawing session (call it once, after the run); returns whether the cutover saw
    /// it wait for the sequence, and what it drew: the value, or `failed: …` with the error.
    public func outcome() -> (sawItWait: Bool, drawn: String?) {
        done.wait()
        return (sawItWait.value, drawn.value)
    }
}
