import Foundation

/// Something to sleep on that can be woken early: the background retry loop waits on it until its
/// next tenant is due, a new tenant is scheduled, or the service shuts down.
final class Alarm: @unchecked Sendable {
    private let lock = NSLock()
    private var sleeper: CheckedContinuation<Void, Never>?
    private var rung = false

    /// Returns after `duration`, or sooner if ``ring()`` is called (or was, since the last wait) or
    /// the calling task is cancelled.
    func sleep(for duration: Duration) async {
        let timer = Task { [weak self] in
            try? await Task.sleep(for: duration)
            if !Task.isCancelled { self?.ring() }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                lock.lock()
                if rung || Task.isCancelled {
                    rung = false
                    lock.unlock()
                    continuation.resume()
                } else {
                    sleeper = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            ring()
        }
        timer.cancel()
    }

    /// Wakes the sleeper now, or the next one at once.
    func ring() {
        lock.lock()
        let continuation = sleeper
        sleeper = nil
        rung = continuation == nil
        lock.unlock()
        continuation?.resume()
    }
}
