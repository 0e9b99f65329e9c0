import CLibPQ

extension Connection {
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
        let opening: String, closing: String, undo: [String]
        if transactionDepth > 0 {
            savepointCounter += 1
            let name = "tm_savepoint_\(savepointCounter)"
            (opening, closing, undo) = ("SAVEPOINT \(name)", "RELEASE SAVEPOINT \(name)", ["ROLLBACK TO SAVEPOINT \(name)", "RELEASE SAVEPOINT \(name)"])
        } else {
            (opening, closing, undo) = ("BEGIN", "COMMIT", ["ROLLBACK"])
        }
        do {
            let results = try pipeline([Statement(opening)] + statements + [Statement(closing)])
            return Array(results.dropFirst().dropLast())
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
}
