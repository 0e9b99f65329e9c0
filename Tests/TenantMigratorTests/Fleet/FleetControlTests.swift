import LibPQ
import Testing
@testable import TenantMigrator

/// A stop is announced before it takes effect: what the CLI writes on Ctrl-C cannot be lost with a
/// run that ends because of it.
@Suite("FleetControl")
struct FleetControlTests {
    @Test func aStopIsAnnouncedBeforeItTakesEffect() {
        let control = FleetControl()
        let cancelled = Locked(0)
        control.onCancel { cancelled.withLock { $0 += 1 } }

        var announcements: [(cancelling: Bool, stoppedYet: Bool, cancelledYet: Int)] = []
        let first = control.stop { cancelling in
            announcements.append((cancelling, control.isStopped, cancelled.withLock { $0 }))
        }
        #expect(!first)
        #expect(control.isStopped)
        let second = control.stop { cancelling in
            announcements.append((cancelling, control.isStopped, cancelled.withLock { $0 }))
        }
        #expect(second)
        #expect(cancelled.withLock { $0 } == 1)

        #expect(announcements.map(\.cancelling) == [false, true])
        // The first announcement came while the run still took tenants, the second before the
        // tenants in flight were cancelled.
        #expect(announcements.map(\.stoppedYet) == [false, true])
        #expect(announcements.map(\.cancelledYet) == [0, 0])
    }

    @Test func aFailFastHaltIsNoStopToAnnounce() {
        let control = FleetControl()
        control.haltAfterFailure()
        var said: [Bool] = []
        #expect(!control.stop { said.append($0) })
        #expect(said == [false])
    }
}
