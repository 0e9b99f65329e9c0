/// Durations as the fractional numbers that reports, logs and PostgreSQL settings use. `package`:
/// shared by this package's modules, not added to the apps' `Duration`.
extension Duration {
    /// The duration in seconds, with its fraction.
    package var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in milliseconds, with its fraction.
    package var inMilliseconds: Double { inSeconds * 1000 }

    /// The time since `start` on the continuous clock.
    package static func since(_ start: ContinuousClock.Instant) -> Duration { ContinuousClock.now - start }
}
