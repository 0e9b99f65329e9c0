@testable import EmbeddedPostgres
import Foundation
import Testing

@Suite struct ChildProcessTests {
    @Test func statusAndOutputAreCaptured() throws {
        let outcome = try ChildProcess("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"]).wait()
        #expect(outcome.status == 3)
        #expect(outcome.output.contains("out") && outcome.output.contains("err"), "\(outcome.output)")
    }

    /// A child spawned from a process that holds a lot of memory reports its own peak, not the
    /// parent's: `wait4`'s `ru_maxrss` would report the parent's 256 MiB for a `sleep`.
    @Test func thePeakIsTheChildsOwnNotItsParents() throws {
        let size = 256 << 20
        let ballast = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 4096)
        defer { ballast.deallocate() }
        ballast.initializeMemory(as: UInt8.self, repeating: 1, count: size)
        let outcome = try ChildProcess("/bin/sleep", ["0.3"]).wait()
        #expect(outcome.status == 0)
        #expect(outcome.peakMemoryKiB > 0)
        #expect(outcome.peakMemoryKiB < 64 << 10, "a sleep reported \(outcome.peakMemoryKiB) KiB: the parent's memory")
        #expect(ballast.load(fromByteOffset: size - 1, as: UInt8.self) == 1)
    }
}
