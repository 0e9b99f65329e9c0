import Foundation
import LibPQ
import PostgresTestSupport
import Testing

@Suite struct LockedTests {
    /// Many threads and tasks changing one state at once lose no change.
    @Test func concurrentChangesAreNeverLost() async {
        let counter = Locked(0)
        let threads = (0..<4).map { _ in
            Thread { for _ in 0..<10_000 { counter.withLock { $0 += 1 } } }
        }
        threads.forEach { $0.start() }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<10_000 { counter.withLock { $0 += 1 } } }
            }
        }
        let threadsDone = try? await waitUntil { threads.allSatisfy(\.isFinished) }
        #expect(threadsDone == true)
        #expect(counter.value == 120_000)
    }

    /// The body's result comes back; a body that throws keeps what it changed before throwing,
    /// and the lock is free again afterwards.
    @Test func resultsAndErrorsPassThrough() throws {
        let state = Locked(["a"])
        #expect(state.withLock { $0.count } == 1)
        #expect(throws: TestFailure.self) {
            try state.withLock { names in
                names.append("b")
                throw TestFailure("refused")
            }
        }
        #expect(state.withLock { $0 } == ["a", "b"])
    }

    /// `value` is a copy: changing it changes nothing under the lock.
    @Test func valueIsASnapshot() {
        let state = Locked([1, 2])
        var copy = state.value
        copy.append(3)
        #expect(state.value == [1, 2])
    }
}
