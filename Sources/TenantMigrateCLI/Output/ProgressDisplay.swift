import Foundation
import TenantMigrator

/// Shows a fleet run's progress on stderr: a live line on a terminal, plain periodic lines in CI or
/// when stderr is redirected.
final class ProgressDisplay: @unchecked Sendable {
    private let lock = NSLock()
    private let verb: String
    private let isLive: Bool
    private var lastDraw = Date.distantPast
    private var lastPrinted = -1
    private var drewLive = false

    init(verb: String) {
        self.verb = verb
        let ci = ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty && $0 != "false" } ?? false
        isLive = isatty(STDERR_FILENO) == 1 && !ci
    }

    func update(_ progress: FleetProgress) {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        let finished = progress.done == progress.total
        if isLive {
            guard finished || now.timeIntervalSince(lastDraw) >= 0.1 else { return }
            lastDraw = now
            write("\r\u{1B}[K" + line(progress))
            drewLive = true
            if finished { write("\n"); drewLive = false }
        } else {
            // A line every 5 seconds, and at the end.
            guard progress.done > 0, finished || now.timeIntervalSince(lastDraw) >= 5, progress.done != lastPrinted else { return }
            lastDraw = now
            lastPrinted = progress.done
            write(CommandEnvironment.commandName + ": " + line(progress) + "\n")
        }
    }

    /// Ends a live line before other output.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if drewLive { write("\n"); drewLive = false }
    }

    private func line(_ progress: FleetProgress) -> String {
        var text = "\(verb) \(progress.done)/\(progress.total)"
        if progress.failed > 0 { text += ", \(progress.failed) failed" }
        text += String(format: ", %.1f tenants/s", progress.rate)
        if let eta = progress.eta, progress.done < progress.total { text += String(format: ", ETA %.0f s", eta) }
        return text
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
