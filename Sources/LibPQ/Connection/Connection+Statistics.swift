/// What a connection has sent and received, counted by the connection itself: for tests and
/// benchmarks that check how many round trips a piece of work costs.
extension Connection {
    /// Counts since the connection opened (or since ``resetStatistics()``).
    public struct Statistics: Sendable, Hashable {
        /// Times the connection sent something and waited for the server's answer: one per
        /// ``execute(_:)`` or ``script(_:)``, one per pipeline however many statements it holds, one
        /// per COPY.
        public var roundTrips = 0
        /// Statements sent, each statement of a pipeline counted (a script of several counts as one).
        public var statements = 0
        /// Rows received in results.
        public var rowsReceived = 0

        public init() {}
    }

    /// What the connection has sent and received.
    public var statistics: Statistics { counters }

    /// Starts the counts again from zero.
    public func resetStatistics() { counters = Statistics() }

    /// Counts one round trip of `statements` statements.
    func countRoundTrip(statements: Int) {
        counters.roundTrips += 1
        counters.statements += statements
    }

    /// Counts the rows of a result received.
    func countRows(_ rows: Int) { counters.rowsReceived += rows }
}
