import Foundation

/// State that several threads and tasks share, reachable only while holding its lock: the package's
/// one way to guard mutable state that is not an actor's.
///
/// ```swift
/// private let state = Locked(State())
/// let due = state.withLock { $0.takeDue(at: now) }   // decide under the lock…
/// due.forEach { $0.resume() }                       // …act outside it
/// ```
///
/// Keep each `withLock` short: decide under the lock, and resume continuations, close connections or
/// call handlers after it returns. The body must not await, and must not reenter the same lock.
///
/// Why a class of our own rather than the standard library's `Synchronization.Mutex`: `Mutex` needs
/// macOS 15, and the package supports macOS 14, so adopting it would raise the floor for every app
/// that depends on the library. `Locked` is also copyable, so closures and tasks can share one
/// instance. Its interface is `Mutex`'s (`withLock` with `inout` state), so moving to `Mutex` later
/// changes this file only.
package final class Locked<State> {
    private let lock = NSLock()
    private var state: State

    package init(_ state: State) {
        self.state = state
    }

    /// Runs `body` on the state while holding the lock, and returns what it returns.
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    /// A copy of the state as it is now.
    package var value: State {
        withLock { $0 }
    }
}

/// Every access goes through the lock, so sharing is safe whenever the state itself may cross
/// threads.
extension Locked: @unchecked Sendable where State: Sendable {}
