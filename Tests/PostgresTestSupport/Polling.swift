import Foundation
import LibPQ

/// Polls `condition` every 20 ms until it holds or `timeout` passes; returns whether it held.
///
/// The timeout is generous on purpose (the suite must pass on a busy machine): a condition that
/// holds returns at once, and only a failing test waits it out. (30 s was once the default: a
/// background migration of two small tenants took longer while the whole suite shared two busy
/// cores.)
public func waitUntil(timeout: Duration = .seconds(300), _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

/// Runs `body` on a thread of its own, not the cooperative pool, and awaits its result without
/// blocking a thread of the pool: for watchers and samplers that must keep running while other
/// suites keep the pool busy.
///
/// `body` runs outside the result's lock, which is taken only to hand the result over: run inside
/// it, `body` held the lock while the awaiting task polled it, so every poll blocked a thread of
/// the pool for as long as `body` ran. Two such waits at once (a sampler that runs until an
/// in-process migration ends, a lock holder that waits for an in-process runner) took both
/// threads of the CI machine's pool, and the migrations they waited for never ran again: a
/// whole test run stalled until CI's limit (seen with gdb: both pool threads in `Locked.value`).
public func onAThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    let result = Locked<Result<T, any Error>?>(nil)
    Thread {
        let outcome = Result { try body() }
        result.withLock { $0 = outcome }
    }.start()
    while true {
        if let outcome = result.value { return try outcome.get() }
        try await Task.sleep(for: .milliseconds(10))
    }
}
