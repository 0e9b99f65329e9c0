import CLibPQ

/// Statements whose results nothing waits for, sent with the connection's next round trip rather
/// than with one of their own.
///
/// Inside a transaction, many statements only need to have run before the next one that reads
/// something: re-enabling a trigger, a catalog write, emptying a temporary table, `BEGIN` itself.
/// ``sendWithNextRoundTrip(_:)`` queues such a statement; the connection's next round trip of any
/// kind (``execute(_:)``, ``script(_:)``, ``pipeline(_:)``, a COPY, `COMMIT`) sends the queue first,
/// in the same pipeline where it can (a COPY, which cannot be pipelined, costs the queue a round trip
/// of its own). One statement per message, as strict one-statement mode requires.
///
/// A queued statement that fails aborts the transaction and its error (which names the statement)
/// is thrown by that next round trip; the statements after it are skipped. So queue only
/// statements whose failure ends the transaction anyway.
extension Connection {
    /// Queues `statement` to go out at the front of this connection's next round trip.
    ///
    /// Inside a transaction opened by ``transaction(beginStatement:_:)``, whose `COMMIT` sends
    /// whatever is still queued and whose rollback drops it. Outside one, where nothing would
    /// bound the wait, the statement runs at once.
    public func sendWithNextRoundTrip(_ statement: Statement) throws {
        guard transactionDepth > 0 else {
            try execute(statement)
            return
        }
        try judge([statement])
        queuedStatements.append(statement)
    }

    /// Queues `statement` like ``sendWithNextRoundTrip(_:)``, and `handler` to read its result when
    /// the round trip that sends it returns (before that round trip's own results are given back).
    /// The handler is never called when the statement is not run: the transaction rolled back
    /// before sending it, or a statement queued before it failed.
    public func sendWithNextRoundTrip(_ statement: Statement, onResult handler: @escaping (QueryResult) throws -> Void) throws {
        guard transactionDepth > 0 else {
            try handler(try execute(statement))
            return
        }
        try judge([statement])
        queuedStatements.append(statement)
        queuedResultHandlers.append((queuedStatements.count - 1, handler))
    }

    /// Whether statements wait for the next round trip.
    public var hasQueuedStatements: Bool { !queuedStatements.isEmpty }

    /// Sends the queued statements now, in one round trip of their own (nothing when none is queued).
    public func sendQueuedStatements() throws {
        guard hasQueuedStatements else { return }
        _ = try pipeline([])
    }

    /// Empties the queue and returns it; the transaction's `BEGIN` counts as sent from then on.
    func takeQueuedStatements() -> [Statement] {
        guard !queuedStatements.isEmpty else { return [] }
        defer { queuedStatements = [] }
        isBeginQueued = false
        return queuedStatements
    }

    /// Forgets the queue (a rollback: what it holds would have been rolled back). Returns whether the
    /// transaction's `BEGIN` was still in it, that is, whether the server never saw the transaction.
    func dropQueuedStatements() -> Bool {
        let unsent = isBeginQueued
        queuedStatements = []
        isBeginQueued = false
        return unsent
    }
}
