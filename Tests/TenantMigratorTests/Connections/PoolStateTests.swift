import PostgresTestSupport
import Testing
@testable import TenantMigrator

/// The pool's bookkeeping on its own: no server, no sleeping (the clock is passed in). Connections
/// and waiting tasks are plain numbers here.
@Suite("Pool state") struct PoolStateTests {
    typealias State = PoolState<Int, String>

    let start = ContinuousClock.now

    /// A state whose `open` connections are all checked out, taken as slots and numbered 1….
    func state(maximum: Int, idleTimeout: Duration = .seconds(60), checkedOut open: Int = 0) throws -> State {
        var state = State(maximumConnections: maximum, idleTimeout: idleTimeout)
        for _ in 0..<open {
            let (grant, _) = try state.take(at: start)
            guard case .slot = grant else { throw TestFailure("expected a slot, got \(String(describing: grant))") }
            state.countOpened()
        }
        return state
    }

    @Test func slotsAreGrantedUpToTheMaximumThenNone() throws {
        var state = try state(maximum: 2, checkedOut: 2)
        let (grant, expired) = try state.take(at: start)
        #expect(grant == nil)
        #expect(expired.isEmpty)
        #expect(state.statistics == ConnectionPool.Statistics(opened: 2, closed: 0, inUse: 2, idle: 0, waiting: 0))
    }

    @Test func aConnectionGivenBackIsTakenAgainLastInFirstOut() throws {
        var state = try state(maximum: 3, checkedOut: 2)
        #expect(state.checkin(1, reusable: true, at: start) == .keepIdle(startSweeping: true))
        #expect(state.checkin(2, reusable: true, at: start) == .keepIdle(startSweeping: false))
        #expect(state.statistics.idle == 2)
        #expect(try state.take(at: start).grant == .connection(2))
        #expect(try state.take(at: start).grant == .connection(1))
        #expect(try state.take(at: start).grant == .slot)
        #expect(try state.take(at: start).grant == nil)
    }

    @Test func waitingTasksAreServedFirstComeFirstServed() throws {
        var state = try state(maximum: 1, checkedOut: 1)
        let first = state.nextWaiterID(), second = state.nextWaiterID()
        #expect(first != second)
        #expect(try state.wait("first", id: first) == nil)
        #expect(try state.wait("second", id: second) == nil)
        #expect(state.statistics.waiting == 2)

        #expect(state.checkin(1, reusable: true, at: start) == .handOver(to: "first"))
        // Not reusable: closed, and its slot goes to the next in line, which opens a connection.
        #expect(state.checkin(1, reusable: false, at: start) == .close(slotFor: "second"))
        #expect(state.statistics == ConnectionPool.Statistics(opened: 1, closed: 1, inUse: 1, idle: 0, waiting: 0))
    }

    @Test func aWaiterFindsWhatCameBackSinceItsFirstLook() throws {
        var state = try state(maximum: 1, checkedOut: 1)
        #expect(try state.take(at: start).grant == nil)
        _ = state.checkin(1, reusable: true, at: start)
        #expect(try state.wait("late", id: state.nextWaiterID()) == .connection(1))
        #expect(state.statistics.waiting == 0)
    }

    @Test func aWaiterThatGivesUpLeavesTheLine() throws {
        var state = try state(maximum: 1, checkedOut: 1)
        let id = state.nextWaiterID()
        _ = try state.wait("impatient", id: id)
        #expect(state.removeWaiter(id) == "impatient")
        #expect(state.removeWaiter(id) == nil)
        #expect(state.checkin(1, reusable: true, at: start) == .keepIdle(startSweeping: true))
    }

    @Test func aConnectionThatIsNotReusableFreesItsSlot() throws {
        var state = try state(maximum: 1, checkedOut: 1)
        #expect(state.checkin(1, reusable: false, at: start) == .close(slotFor: nil))
        #expect(state.statistics == ConnectionPool.Statistics(opened: 1, closed: 1, inUse: 0, idle: 0, waiting: 0))
        #expect(try state.take(at: start).grant == .slot)
    }

    @Test func withoutAnIdleTimeoutEveryConnectionGivenBackIsClosed() throws {
        var state = try state(maximum: 2, idleTimeout: .zero, checkedOut: 2)
        #expect(state.checkin(1, reusable: true, at: start) == .close(slotFor: nil))
        // A waiting task still gets a reusable connection.
        _ = try state.take(at: start)
        _ = try state.wait("waiting", id: state.nextWaiterID())
        #expect(state.checkin(2, reusable: true, at: start) == .handOver(to: "waiting"))
    }

    @Test func aFailedOpenGivesTheSlotToTheNextInLineOrFreesIt() throws {
        var state = try state(maximum: 1)
        #expect(try state.take(at: start).grant == .slot)
        _ = try state.wait("next", id: state.nextWaiterID())
        #expect(state.openFailed() == "next")
        #expect(state.openFailed() == nil)
        #expect(state.statistics == ConnectionPool.Statistics(opened: 0, closed: 0, inUse: 0, idle: 0, waiting: 0))
    }

    @Test func idleConnectionsExpireAfterTheIdleTimeout() throws {
        var state = try state(maximum: 3, idleTimeout: .seconds(10), checkedOut: 3)
        _ = state.checkin(1, reusable: true, at: start)
        _ = state.checkin(2, reusable: true, at: start + .seconds(5))
        #expect(state.sweep(at: start + .seconds(9)) == ([], true))
        #expect(state.sweep(at: start + .seconds(10)) == ([1], true))
        // A checkout closes the expired ones as it goes, and takes a fresh slot instead.
        let (grant, expired) = try state.take(at: start + .seconds(15))
        #expect(expired == [2])
        #expect(grant == .slot)
        #expect(state.sweep(at: start + .seconds(15)) == ([], false))
        #expect(state.statistics == ConnectionPool.Statistics(opened: 3, closed: 2, inUse: 2, idle: 0, waiting: 0))
        // The sweeper stopped, so the next connection kept idle starts it again.
        #expect(state.checkin(3, reusable: true, at: start + .seconds(16)) == .keepIdle(startSweeping: true))
    }

    @Test func aSlotToHoldIsFreeOrAnIdleConnectionsNeverAWait() throws {
        var one = try state(maximum: 1)
        #expect(throws: NoFreeSlot.self) { try one.takeSlotToHold() }

        var state = try state(maximum: 2, checkedOut: 1)
        #expect(try state.takeSlotToHold() == nil)
        #expect(throws: NoFreeSlot.self) { try state.takeSlotToHold() }
        _ = state.checkin(1, reusable: true, at: start)
        #expect(try state.takeSlotToHold() == 1)
        #expect(state.statistics == ConnectionPool.Statistics(opened: 1, closed: 1, inUse: 2, idle: 0, waiting: 0))
    }

    @Test func shutdownClosesTheIdleConnectionsAndTheOthersWhenTheyComeBack() throws {
        var state = try state(maximum: 2, checkedOut: 2)
        _ = state.checkin(1, reusable: true, at: start)
        let (closing, waiting) = state.shutDown()
        #expect(closing == [1])
        #expect(waiting.isEmpty)
        #expect(throws: CancellationError.self) { try state.take(at: start) }
        #expect(throws: CancellationError.self) { try state.wait("late", id: state.nextWaiterID()) }
        #expect(throws: CancellationError.self) { try state.takeSlotToHold() }
        // A connection in use when the pool shut down is closed when it comes back.
        #expect(state.checkin(2, reusable: true, at: start) == .close(slotFor: nil))
        #expect(state.statistics == ConnectionPool.Statistics(opened: 2, closed: 2, inUse: 0, idle: 0, waiting: 0))
        #expect(state.sweep(at: start) == ([], false))
    }

    @Test func shutdownDismissesTheWaitingTasks() throws {
        var state = try state(maximum: 1, checkedOut: 1)
        _ = try state.wait("first", id: state.nextWaiterID())
        _ = try state.wait("second", id: state.nextWaiterID())
        let (closing, waiting) = state.shutDown()
        #expect(closing.isEmpty)
        #expect(waiting == ["first", "second"])
        #expect(state.statistics.waiting == 0)
        // The slot of a connection closed after the shutdown goes to no one.
        #expect(state.closed() == nil)
        #expect(state.statistics.inUse == 0)
    }

    /// Random sequences of what tasks do with the pool never hold more slots than the maximum,
    /// never lend a connection twice, and keep the statistics consistent.
    @Test(arguments: 1...20 as ClosedRange<UInt64>) func randomUseKeepsTheBookkeepingSound(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let maximum = Int.random(in: 1...4, using: &random)
        var state = State(maximumConnections: maximum, idleTimeout: .seconds(10))
        var now = start
        var lent: Set<Int> = [], idle: Set<Int> = [], waiting: [UInt64: String] = [:]
        var nextConnection = 1, slots = 0
        func opened() -> Int {
            state.countOpened()
            defer { nextConnection += 1 }
            return nextConnection
        }
        func receive(_ grant: PoolGrant<Int>) throws {
            switch grant {
            case .slot: slots += 1; lent.insert(opened())
            case .connection(let connection):
                guard idle.remove(connection) != nil else { throw TestFailure("lent \(connection), which was not idle") }
                lent.insert(connection)
            }
        }
        for _ in 0..<300 {
            now += .seconds(Int.random(in: 0...4, using: &random))
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                let (grant, expired) = try state.take(at: now)
                idle.subtract(expired)
                slots -= expired.count
                if let grant { try receive(grant) } else {
                    let id = state.nextWaiterID()
                    if let grant = try state.wait("w\(id)", id: id) { try receive(grant) } else { waiting[id] = "w\(id)" }
                }
            case 1, 2:
                guard let connection = lent.randomElement(using: &random) else { continue }
                lent.remove(connection)
                switch state.checkin(connection, reusable: Int.random(in: 0..<4, using: &random) > 0, at: now) {
                case .handOver(let waiter):
                    waiting = waiting.filter { $0.value != waiter }
                    lent.insert(connection)
                case .keepIdle:
                    idle.insert(connection)
                case .close(let waiter?):
                    waiting = waiting.filter { $0.value != waiter }
                    lent.insert(opened())
                case .close(nil):
                    slots -= 1
                }
            default:
                guard let id = waiting.keys.randomElement(using: &random) else {
                    let (expired, _) = state.sweep(at: now)
                    idle.subtract(expired)
                    slots -= expired.count
                    continue
                }
                #expect(state.removeWaiter(id) == waiting.removeValue(forKey: id))
            }
            let statistics = state.statistics
            #expect(slots <= maximum)
            #expect(statistics.inUse == lent.count)
            #expect(statistics.idle == idle.count)
            #expect(statistics.waiting == waiting.count)
            #expect(statistics.inUse + statistics.idle == slots)
            #expect(lent.isDisjoint(with: idle))
        }
    }
}
