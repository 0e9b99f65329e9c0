import CLibPQ

extension Connection {
    /// Runs `body` in a transaction: it commits when `body` returns and rolls back when it throws.
    ///
    /// Called inside another transaction, it opens a savepoint instead (see ``savepoint(_:)``), so
    /// transactions nest.
    ///
    /// - Parameter beginStatement: the statement that opens the transaction, for isolation levels
    ///   (`BEGIN ISOLATION LEVEL SERIALIZABLE`).
    public func transaction<T>(beginStatement: String = "BEGIN", _ body: (Connection) throws -> T) throws -> T {
        if transactionDepth > 0 { return try savepoint(body) }
        try script(beginStatement)
        transactionDepth = 1
        defer { transactionDepth = 0 }
        let value: T
        do {
            value = try body(self)
        } catch {
            rollbackQuietly("ROLLBACK")
            throw error
        }
        // COMMIT of a failed transaction "succeeds" as a ROLLBACK; report it as the failure it is.
        if PQtransactionStatus(handle) == PQTRANS_INERROR {
            rollbackQuietly("ROLLBACK")
            throw PQError(
                kind: .server,
                message: "the transaction was aborted by an earlier error that the caller swallowed; it was rolled back",
                sqlState: .inFailedSQLTransaction
            )
        }
        try script("COMMIT")
        return value
    }

    /// Runs `body` inside a savepoint of the current transaction: it is released when `body` returns
    /// and rolled back to when it throws, leaving the outer transaction usable. Savepoints nest.
    public func savepoint<T>(_ body: (Connection) throws -> T) throws -> T {
        guard transactionDepth > 0 else { return try transaction(body) }
        savepointCounter += 1
        let name = "tm_savepoint_\(savepointCounter)"
        try script("SAVEPOINT \(name)")
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        do {
            let value = try body(self)
            try script("RELEASE SAVEPOINT \(name)")
            return value
        } catch {
            rollbackQuietly("ROLLBACK TO SAVEPOINT \(name)", "RELEASE SAVEPOINT \(name)")
            throw error
        }
    }

    /// Runs `statements`, one per message, in one round trip; logs rather than throws a failure.
    private func rollbackQuietly(_ statements: String...) {
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
}
