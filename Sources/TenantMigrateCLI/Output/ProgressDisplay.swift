import Foundation
import TenantMigrator

/// A fleet run's progress on stderr, drawn by one task that owns all of its state: the run's
/// workers only send their counts through a stream, so nothing is shared and nothing is locked.
///
/// On a terminal (and not in CI), one live line redrawn in place, several times a second and at
/// least every half second (the rate and the time left move while a long tenant runs):
///
///     migrating [########............] 41/100, 2 failed, 12.3 tenants/s, 5 s left
///
/// Off a terminal, a plain line every 5 seconds and one at the end, as CI logs want them.
struct ProgressDisplay: Sendable {
    /// What the line says the run does: `migrating`, `rolling back`, `creating`, `dry run`.
    let activity: String
    let console: Console
    /// Whether the line is drawn live (a terminal, not CI).
    let isLive: Bool

    init(activity: String, console: Console, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.activity = activity
        self.console = console
        let ci = environment["CI"].map { !$0.isEmpty && $0 != "false" } ?? false
        isLive = StandardStream.error.isTerminal && !ci
    }

    /// Runs `operation`, showing the progress it reports through the callback it is given.
    func showing<Result>(_ operation: (@escaping @Sendable (FleetProgress) -> Void) async throws -> Result) async throws -> Result {
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        let drawer = Task { [self] in await draw(events) }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                continuation.yield(.tick)
            }
        }
        func stop() async {
            ticker.cancel()
            continuation.finish()
            await drawer.value
        }
        do {
            let result = try await operation { continuation.yield(.progress($0)) }
            await stop()
            return result
        } catch {
            await stop()
            throw error
        }
    }

    private enum Event {
        case progress(FleetProgress)
        case tick
    }

    /// The drawing loop: the only place that knows what was drawn.
    private func draw(_ events: AsyncStream<Event>) async {
        let clock = ContinuousClock()
        let started = clock.now
        var latest: FleetProgress?
        var lastDrawn = clock.now - .seconds(60)
        var lastPrintedDone = -1
        var liveLineShown = false
        for await event in events {
            if case let .progress(progress) = event { latest = progress }
            guard var progress = latest else { continue }
            // The rate and the time left as of now, not as of the last tenant that finished.
            progress.elapsed = (clock.now - started).inSeconds
            let finished = progress.done == progress.total
            let sinceDrawn = clock.now - lastDrawn
            if isLive {
                guard finished || sinceDrawn >= .milliseconds(100) else { continue }
                StandardStream.error.write(Console.clearLine + liveLine(progress))
                liveLineShown = true
            } else {
                guard progress.done > 0, progress.done != lastPrintedDone, finished || sinceDrawn >= .seconds(5) else { continue }
                console.note(plainLine(progress))
                lastPrintedDone = progress.done
            }
            lastDrawn = clock.now
        }
        // The run is over: the live line stays, as the last word on the run's progress.
        if liveLineShown { StandardStream.error.write("\n") }
    }

    /// `migrating [####....] 41/100, 2 failed, 12.3 tenants/s, 5 s left`, fitted to the terminal's
    /// width (a line that wraps cannot be redrawn in place): the time left, then the rate, then
    /// the bar give way first.
    private func liveLine(_ progress: FleetProgress) -> String {
        let style = TextStyle.error
        let count = "\(progress.done)/\(progress.total)"
        let failed = progress.failed > 0 ? "\(progress.failed) failed" : nil
        let rate = String(format: "%.1f tenants/s", progress.rate)
        let left = progress.eta.flatMap { progress.done < progress.total ? Duration.seconds($0).commandLineText + " left" : nil }
        let columns = Self.terminalColumns() - 1
        for (showsBar, optional) in [(true, [rate, left]), (true, [rate]), (true, []), (false, [])] {
            let parts = [count, failed].compactMap { $0 } + optional.compactMap { $0 }
            let barWidth = showsBar ? 20 : 0
            let plainWidth = activity.count + 1 + (showsBar ? barWidth + 3 : 0) + parts.map(\.count).reduce(0, +) + 2 * (parts.count - 1)
            guard plainWidth <= columns || !showsBar else { continue }
            let filled = progress.total == 0 ? barWidth : min(barWidth, progress.done * barWidth / progress.total)
            let bar = showsBar ? "[" + style.green(String(repeating: "#", count: filled)) + String(repeating: ".", count: barWidth - filled) + "] " : ""
            let text = parts.map { $0 == failed ? style.red($0) : $0 }.joined(separator: ", ")
            return style.bold(activity) + " " + bar + text
        }
        return activity + " " + count
    }

    /// The terminal's width on stderr, or `COLUMNS`, or 80.
    static func terminalColumns() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init) ?? 80
    }

    /// `migrating 41/100, 2 failed, 12.3 tenants/s, ETA 5 s`.
    private func plainLine(_ progress: FleetProgress) -> String {
        var text = "\(activity) \(progress.done)/\(progress.total)"
        if progress.failed > 0 { text += ", \(progress.failed) failed" }
        text += String(format: ", %.1f tenants/s", progress.rate)
        if let eta = progress.eta, progress.done < progress.total { text += ", ETA " + Duration.seconds(eta).commandLineText }
        return text
    }
}
