import Foundation
import LibPQ
import TenantMigrator

/// When an online run entered each phase (`--trace-waits`), to tell in which phase the app's
/// slowest statements began.
final class PhaseTimeline: @unchecked Sendable {
    private let lock = NSLock()
    private var entered: [(phase: OnlinePhase, at: ContinuousClock.Instant)] = []

    /// Notes `phase` when the run enters it (not again for each batch or round).
    func enter(_ phase: OnlinePhase) {
        lock.lock()
        defer { lock.unlock() }
        if entered.last?.phase != phase || phase == .catchingUp { entered.append((phase, .now)) }
    }

    /// The phase a statement that began at `instant` began in (`before` the first).
    func phase(at instant: ContinuousClock.Instant) -> String {
        lock.lock()
        defer { lock.unlock() }
        return entered.last { $0.at <= instant }.map { "after \($0.phase.rawValue)" } ?? "before prepared"
    }

    /// The phases with their times since `start`, then the app's five slowest writes and reads.
    func trace(of report: AppTraffic.Report, since start: ContinuousClock.Instant) -> String {
        func seconds(_ instant: ContinuousClock.Instant) -> String { String(format: "%+.3f s", (instant - start).inSeconds) }
        lock.lock()
        var lines = ["  phases: " + entered.map { "\($0.phase.rawValue) \(seconds($0.at))" }.joined(separator: ", ")]
        lock.unlock()
        for writes in [true, false] {
            let slowest = report.statements.filter { $0.writes == writes }.sorted { $0.took > $1.took }.prefix(5)
            lines.append("  slowest \(writes ? "writes" : "reads"): " + slowest.map {
                String(format: "%.1f ms", $0.took.inMilliseconds) + " at \(seconds($0.started)) (\(phase(at: $0.started)))"
            }.joined(separator: "; "))
        }
        return lines.joined(separator: "\n")
    }
}
