import LibPQ

/// How long each part of an online cutover took, in order, for its log line
/// (`cutover attempt 1 committed: writes locked 0.4 ms, rechecked 1.2 ms, …`): where the app's
/// writes and reads waited.
struct CutoverPhases: CustomStringConvertible {
    private let clock = ContinuousClock()
    private var last: ContinuousClock.Instant
    private var parts: [(name: String, took: Duration)] = []

    init() {
        last = clock.now
    }

    /// Ends the part `name`, begun where the last one ended.
    mutating func mark(_ name: String) {
        let now = clock.now
        parts.append((name, now - last))
        last = now
    }

    var description: String {
        parts.map { part in
            let tenths = Int((part.took.inMilliseconds * 10).rounded())
            return "\(part.name) \(tenths / 10).\(tenths % 10) ms"
        }.joined(separator: ", ")
    }
}
