import Foundation

/// The peak resident memory of this process (Linux `VmHWM`), which a benchmark resets before each
/// run so the peak is that run's.
enum PeakMemory {
    /// Resets VmHWM to the current RSS (`clear_refs` 5); false if that is not possible.
    static func reset() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    /// VmHWM from /proc/self/status, in KiB (0 where there is no /proc).
    static func kibibytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
    }
}
