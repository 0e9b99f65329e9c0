import ChildProcesses
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

    /// Under GNU time the peak is exact, however briefly the program held it: `dd` fills a
    /// 96 MiB buffer and ends within milliseconds, between two samples; from a parent that holds
    /// 256 MiB, a `sleep` still counts only its own memory.
    @Test func measuringThePeakCountsABriefPeakExactly() throws {
        try #require(FileManager.default.isExecutableFile(atPath: ChildProcess.gnuTime), "GNU time is missing (Debian: apt-get install time; .ci/run installs it)")
        let brief = try ChildProcess("/bin/dd", ["if=/dev/zero", "of=/dev/null", "bs=96M", "count=1"], measuringPeakMemory: true).wait()
        #expect(brief.status == 0, "\(brief.output)")
        #expect(brief.peakMemoryIsExact)
        #expect(brief.peakMemoryKiB >= 96 << 10 && brief.peakMemoryKiB < 128 << 10, "dd with a 96 MiB buffer reported \(brief.peakMemoryKiB) KiB")

        let size = 256 << 20
        let ballast = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 4096)
        defer { ballast.deallocate() }
        ballast.initializeMemory(as: UInt8.self, repeating: 1, count: size)
        let sleep = try ChildProcess("/bin/sleep", ["0.1"], measuringPeakMemory: true).wait()
        #expect(sleep.peakMemoryIsExact)
        #expect(sleep.peakMemoryKiB > 0 && sleep.peakMemoryKiB < 64 << 10, "a sleep reported \(sleep.peakMemoryKiB) KiB: the parent's memory")
        #expect(ballast.load(fromByteOffset: size - 1, as: UInt8.self) == 1)

        let failed = try ChildProcess("/bin/sh", ["-c", "exit 3"], measuringPeakMemory: true).wait()
        #expect(failed.status == 3)
        #expect(failed.peakMemoryIsExact)
    }

    /// Many programs that end at the same moment are each reaped (Foundation's `Process` could
    /// leave one a zombie and its waiter waiting forever), from tasks and from threads alike.
    @Test func programsEndingTogetherAreAllReaped() async throws {
        let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
            for index in 0..<40 {
                group.addTask {
                    let child = try ChildProcess("/bin/sh", ["-c", "sleep 0.2; exit \(index % 7)"])
                    return index.isMultiple(of: 2) ? try await child.finished().status : try child.wait().status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.sorted() == (0..<40).map { Int32($0 % 7) }.sorted())
    }

    /// A signal ends the program; the outcome tells a signal from an exit with the same number.
    @Test func aSignalIsToldFromAnExit() async throws {
        let sleeping = try ChildProcess("/bin/sleep", ["300"])
        #expect(sleeping.isRunning)
        sleeping.send(SIGKILL)
        let killed = try await sleeping.finished()
        #expect(killed.terminatingSignal == SIGKILL)
        #expect(killed.status == 128 + SIGKILL)
        #expect(!sleeping.isRunning)
        let exited = try await ChildProcess("/bin/sh", ["-c", "exit 137"]).finished()
        #expect(exited.terminatingSignal == nil)
        #expect(exited.status == 137)
    }

    /// stdout and stderr go to the files asked for; the captured output then holds neither.
    @Test func outputGoesWhereItIsSent() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("child-process-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("out").path, err = directory.appendingPathComponent("err").path
        let outcome = try await ChildProcess("/bin/sh", ["-c", "echo to-out; echo to-err >&2"], standardOutput: .file(out), standardError: .file(err)).finished()
        #expect(outcome.status == 0)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "to-out\n")
        #expect(try String(contentsOfFile: err, encoding: .utf8) == "to-err\n")
        #expect(outcome.output.isEmpty)
    }

    @Test func aProgramThatCannotStartIsAnError() {
        #expect(throws: ChildProcessError.self) { try ChildProcess("/nonexistent/program", []) }
    }
}
