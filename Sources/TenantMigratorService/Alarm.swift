import LibPQ

/// Something to sleep on that can be woken early: the background retry loop waits on it until its
/// next tenant is due, a new tenant is scheduled, or the service shuts down.
final class Alarm: Sendable {
    private struct State {
        var sleeper: CheckedContinuation<Void, Never>?
        var rung = false
    }

    private let state = Locked(State())

    /// Returns after `duration`, or sooner if ``ring()`` is called (or was, since the last wait) or
    /// the calling task is cancelled.
    func sleep(for duration: Duration) async {
        let timer = Task { [weak self] in
            try? await Task.sleep(for: duration)
            if !Task.isCancelled { self?.ring() }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let wakeNow = state.withLock { state in
                    guard !state.rung, !Task.isCancelled else {
                        state.rung = false
                        return true
                    }
                    state.sleeper = continuation
                    return false
                }
                if wakeNow { continuation.resume() }
            }
        } onCancel: {
            ring()
        }
        timer.cancel()
    }

    /// Wakes the sleeper now, or the next one at once.
    func ring() {
        let sleeper = state.withLock { state in
            let sleeper = state.sleeper
            state.sleeper = nil
            state.rung = sleeper == nil
            return sleeper
        }
        sleeper?.resume()
    }
}
