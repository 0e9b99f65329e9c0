import EmbeddedPostgres
import Foundation
import Testing

/// A child's peak memory, measured by GNU time, is the child's own, not the starting process's.
@Suite struct ChildProcessTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time") && FileManager.default.isExecutableFile(atPath: "/bin/dd"),
                   "needs GNU time and dd"))
    func peakMemoryIsTheChildsOwnWhenMeasured() throws {
        // This process holds 96 MiB, touched, while it starts the children.
        var ballast = [UInt8](repeating: 1, count: 96 << 20)
        ballast[ballast.count - 1] = 2
        let small = try ChildProcess("/bin/dd", ["if=/dev/zero", "of=/dev/null", "bs=1k", "count=1"], measuringPeakMemory: true).wait()
        let large = try ChildProcess("/bin/dd", ["if=/dev/zero", "of=/dev/null", "bs=64M", "count=1"], measuringPeakMemory: true).wait()
        #expect(small.status == 0 && large.status == 0)
        #expect(small.peakMemoryKiB > 0 && small.peakMemoryKiB < 32 << 10, "dd of 1 KiB: \(small.peakMemoryKiB) KiB")
        #expect(large.peakMemoryKiB > 64 << 10, "dd with a 64 MiB buffer: \(large.peakMemoryKiB) KiB")
        #expect(ballast.last == 2)
    }
}
