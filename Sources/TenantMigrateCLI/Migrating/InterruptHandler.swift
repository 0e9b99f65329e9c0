import Dispatch
import Foundation
import TenantMigrator

/// Turns SIGINT and SIGTERM into a graceful stop of a fleet run: the first stops taking new
/// tenants and lets those in flight commit or roll back; the second cancels them (they roll back).
final class InterruptHandler {
    private var sources: [any DispatchSourceSignal] = []

    init(control: FleetControl, console: Console) {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                // Whether this stop cancels depends on earlier stops only, not on --fail-fast having
                // halted the run. The note is written before the stop takes effect: once the run
                // stops it may exit at once, and a note written after could be lost with it.
                control.stop { cancelling in
                    if cancelling {
                        console.note("cancelling the tenants in flight; each is rolled back")
                    } else {
                        console.note("interrupted: no new tenants start; waiting for those in flight (interrupt again to cancel them)")
                    }
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    deinit {
        sources.forEach { $0.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
