import TypedSQL
import CLibPQ

extension Connection {
    /// Runs `body` in a transaction: it commits when `body` returns and rolls back when it throws.
    ///
    /// Called inside another transaction, it opens a savepoint instead (see ``savepoint(_:)``), so
    /// transactions nest.
    ///
    /// The transaction costs no round trip of its own: `BEGIN` is queued
    /// (``sendWithNextRoundTrip(_:)``) and goes out with `body`'s first statement, and `COMMIT` with
    /// whatever `body` left queued. A transaction in which `body` sent nothing sends nothing.
    ///
    /// - Parameter beginStatement: the statement that opens the transaction, for isolation levels
    ///   (`BEGIN ISOLATION LEVEL SERIALIZABLE`).
    public func transaction<T>(beginStatement: SQL = "BEGIN", _ body: (Connection) throws -> T) throws -> T {
        if transactionDepth > 0 { return try savepoint(body) }
        // Whatever was queued before belongs to no transaction: it never is (see sendWithNextRoundTrip).
        transactionDepth = 1
        defer { transactionDepth = 0 }
        queuedStatements = [Statement(beginStatement)]
        isBeginQueued = true
        let value: T
        do {
            value = try body(self)
        } catch {
            if !dropQueuedStatements() { rollbackQuietly("ROLLBACK") }
            throw error
        }
        if isBeginQueued && queuedStatements.count == 1 {
            // Nothing was sent: the server never saw the transaction.
            _ = dropQueuedStatements()
            return value
        }
        // COMMIT of a failed transaction "succeeds" as a ROLLBACK; report it as the failure it is.
        if PQtransactionStatus(handle) == PQTRANS_INERROR {
            _ = dropQueuedStatements()
            rollbackQuietly("ROLLBACK")
            throw PQError(
                kind: .server,
                message: "the transaction was aborted by an earlier error that the caller swallowed; it was rolled back",
                sqlState: .inFailedSQLTransaction
            )
        }
        do {
            if hasQueuedStatements { try pipeline([Statement("COMMIT")]) } else { try script("COMMIT") }
        } catch {
            // A queued statement failed (COMMIT was skipped), or COMMIT itself: end the transaction.
            if PQtransactionStatus(handle) != PQTRANS_IDLE { rollbackQuietly("ROLLBACK") }
            throw error
        }
        return value
    }

    /// Runs `body` inside a savepoint of the current transaction: it is released when `body` returns
    /// and rolled back to when it throws, leaving the outer transaction usable. Savepoints nest.
    public func savepoint<T>(_ body: (Connection) throws -> T) throws -> T {
        guard transactionDepth > 0 else { return try transaction(body) }
        let name = nextSavepointName()
        let savepoint = Statement("SAVEPOINT \(name)")
        // With nothing queued, the savepoint is queued itself and goes out with `body`'s first
        // statement. Otherwise it goes now, behind what is queued, so that a failure of those
        // statements is never taken for one of `body`'s. Its release is queued in turn.
        let queuedAt = hasQueuedStatements ? nil : queuedStatements.count
        if queuedAt != nil { try sendWithNextRoundTrip(savepoint) } else { try pipeline([savepoint]) }
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        do {
            let value = try body(self)
            if PQtransactionStatus(handle) == PQTRANS_INERROR {
                // RELEASE would fail: report the error `body` swallowed, and roll back to the savepoint below.
                throw PQError(
                    kind: .server, message: "the savepoint was aborted by an earlier error that the caller swallowed; it was rolled back",
                    sqlState: .inFailedSQLTransaction
                )
            }
            try sendWithNextRoundTrip(Statement("RELEASE SAVEPOINT \(name)"))
            return value
        } catch {
            // What is queued was queued after the savepoint: rolled back with it, so never sent.
            let unsent = queuedAt.map { queuedStatements.count > $0 && queuedStatements[$0].sql == savepoint.sql } ?? false
            queuedStatements = []
            if !unsent { rollbackQuietly("ROLLBACK TO SAVEPOINT \(name)", "RELEASE SAVEPOINT \(name)") }
            throw error
        }
    }

    /// Runs `statements`, one per message, in one round trip; logs rather than throws a failure.
    private func rollbackQuietly(_ statements: SQL...) {
        do {
            if statements.count == 1 {
                try script(statements[0])
            } else {
                _ = try pipeline(statements.map { Statement($0) })
            }
        } catch {
            logger.warning("rollback failed: \(error)")
        }
    }

    /// Runs `statements` as one transaction in one round trip, one statement per message: a
    /// ``pipeline(_:)`` bracketed by `BEGIN` and `COMMIT`, or, inside a transaction opened by
    /// ``transaction(_:)``, by a savepoint and its release.
    ///
    /// Unlike a bare pipeline, whose implicit transaction is not a transaction block, the statements
    /// run inside a real one, so `SET LOCAL` works and extensions that treat transaction blocks
    /// specially (Citus) see one. When a statement fails, the ones after it are skipped, everything
    /// is rolled back (one more round trip) and the statement's error is thrown.
    ///
    /// - Returns: the statements' results, in order (without those of the brackets).
    @discardableResult
    public func transactionPipeline(_ statements: [Statement]) throws -> [QueryResult] {
        guard !statements.isEmpty else { return [] }
        let opening: SQL, closing: SQL, undo: [SQL]
        if transactionDepth > 0 {
            let name = nextSavepointName()
            (opening, closing, undo) = ("SAVEPOINT \(name)", "RELEASE SAVEPOINT \(name)", ["ROLLBACK TO SAVEPOINT \(name)", "RELEASE SAVEPOINT \(name)"])
        } else {
            (opening, closing, undo) = ("BEGIN", "COMMIT", ["ROLLBACK"])
        }
        // A statement queued before failed: thrown as it is, the savepoint was never made.
        let outcome = try pipelineUntilFailure([Statement(opening)] + statements + [Statement(closing)])
        do {
            if let failure = outcome.failure { throw failure }
            return Array(outcome.results.dropFirst().dropLast())
        } catch {
            // A failed statement left the transaction (or the savepoint) aborted: undo it.
            if PQtransactionStatus(handle) == PQTRANS_INERROR || PQtransactionStatus(handle) == PQTRANS_INTRANS {
                do {
                    _ = try pipeline(undo.map { Statement($0) })
                } catch {
                    logger.warning("rollback failed: \(error)")
                }
            }
            throw error
        }
    }

    /// A savepoint name not used before on this connection.
    private func nextSavepointName() -> SQL {
        savepointCounter += 1
        return "tm_savepoint_\(int: savepointCounter)"
    }
}
