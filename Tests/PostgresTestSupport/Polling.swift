/// Polls `condition` every 20 ms until it holds or `timeout` passes; returns whether it held.
///
/// The timeout is generous on purpose (the suite must pass on a busy machine): a condition that
/// holds returns at once, and only a failing test waits it out.
public func waitUntil(timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
