import Foundation
import LibPQ

/// The CPU time the PostgreSQL server has used, every process of it: the live ones (postmaster,
/// backends, background writers) and the backends that ended, which the postmaster reaped (their
/// time is in its children's time). Read from /proc, so only for a server on this machine; the
/// difference between two readings is the server's CPU for what ran in between, whichever
/// sessions ran it, and no matter how busy the machine was.
struct ServerCPU {
    private let postmaster: Int32
    private let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// The server `connection` is connected to, when it runs on this machine.
    init?(_ connection: Connection) {
        guard let fields = Self.stat(connection.backendPID), fields.count > 1, let parent = Int32(fields[1]) else { return nil }
        postmaster = parent
    }

    /// Seconds of CPU so far.
    func seconds() -> Double {
        guard let main = Self.stat(postmaster), main.count > 14 else { return 0 }
        // Fields after the command: state, ppid, …; utime, stime, cutime, cstime are the 12th to 15th.
        func ticks(_ fields: [String], _ indexes: [Int]) -> Double { indexes.reduce(0) { $0 + (Double(fields[$1]) ?? 0) } }
        var total = ticks(main, [11, 12, 13, 14])
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in processes {
            guard let pid = Int32(entry), pid != postmaster, let fields = Self.stat(pid), fields.count > 12, fields[1] == String(postmaster) else { continue }
            total += ticks(fields, [11, 12])
        }
        return total / ticksPerSecond
    }

    /// /proc/<pid>/stat's fields after the command name (state first), or nil.
    private static func stat(_ pid: Int32) -> [String]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ").map(String.init)
    }
}
