import CLibPQ
import Foundation

extension Connection {
    /// Sends many statements in libpq pipeline mode, so they cost one round trip, and returns their
    /// results in order.
    ///
    /// The batch is all or nothing. Outside a transaction it runs as one implicit transaction; inside
    /// one, a failure aborts that transaction. Either way, if any statement fails, the statements
    /// after it are skipped, the ones before it are rolled back, and the first error is thrown
    /// (its ``PQError/statement`` names the failing statement).
    ///
    /// Statements queued with ``sendWithNextRoundTrip(_:)`` go out first, in the same round trip; a
    /// failure of one of them is thrown here, and the statements after it are skipped.
    @discardableResult
    public func pipeline(_ statements: [Statement]) throws -> [QueryResult] {
        let outcome = try pipelineUntilFailure(statements)
        if let failure = outcome.failure { throw failure }
        return outcome.results
    }

    /// What a pipeline did: the results of the statements that ran, in order, and the error of the
    /// first one that failed (the statements after it were skipped).
    public struct PipelineOutcome {
        /// One result per statement that succeeded, in order: `results.count` is the index of the
        /// failing statement, when one failed.
        public var results: [QueryResult]
        /// The first failure, if any. Inside a transaction, the transaction is then aborted.
        public var failure: PQError?
    }

    /// Like ``pipeline(_:)``, but a failing statement is reported rather than thrown, with the
    /// results of the statements before it: for a caller that knows what to do when one given
    /// statement fails (a `LOCK … NOWAIT` after a savepoint, say). Errors of the connection itself,
    /// and of statements queued with ``sendWithNextRoundTrip(_:)``, are thrown.
    public func pipelineUntilFailure(_ statements: [Statement]) throws -> PipelineOutcome {
        try judge(statements)
        let handlers = queuedResultHandlers
        let queued = takeQueuedStatements()
        var outcome = try sendPipeline(queued + statements)
        if !queued.isEmpty {
            if let failure = outcome.failure, outcome.results.count < queued.count { throw failure }
            for (index, handler) in handlers { try handler(outcome.results[index]) }
            outcome.results.removeFirst(queued.count)
        }
        return outcome
    }

    /// Sends `statements` as one pipeline, nothing else.
    private func sendPipeline(_ statements: [Statement]) throws -> PipelineOutcome {
        guard !statements.isEmpty else { return PipelineOutcome(results: [], failure: nil) }
        countRoundTrip(statements: statements.count)
        guard PQenterPipelineMode(handle) == 1 else { throw PQError.client(handle, "could not enter pipeline mode") }
        // Non-blocking, so that sending a large batch cannot deadlock against unread results.
        PQsetnonblocking(handle, 1)
        defer {
            PQexitPipelineMode(handle)
            PQsetnonblocking(handle, 0)
        }
        // What the server answers, in order: one result per statement, after one for the
        // preparation of each statement text this session has not prepared yet.
        var answers: [(statement: Int, preparing: String?)] = []
        var preparing: [String: String] = [:]
        for (index, statement) in statements.enumerated() {
            logStatement(statement.sql, pipelined: index)
            let count = Int32(statement.binds.count)
            let sent = statement.withParameterArrays { types, values, lengths, formats in
                guard statement.isPreparedPerConnection, preparesStatements else {
                    return PQsendQueryParams(handle, statement.sql, count, types, values, lengths, formats, 0)
                }
                var name = preparedNames[statement.sql] ?? preparing[statement.sql]
                if name == nil {
                    let fresh = "tm_prepared_\(preparedNames.count + preparing.count + 1)"
                    guard PQsendPrepare(handle, fresh, statement.sql, count, types) == 1 else { return 0 }
                    answers.append((index, fresh))
                    preparing[statement.sql] = fresh
                    name = fresh
                }
                return PQsendQueryPrepared(handle, name, count, values, lengths, formats, 0)
            }
            guard sent == 1 else { throw abandonPipeline(PQError.client(handle, "could not queue pipelined statement \(index + 1)", statement: statement.sql)) }
            answers.append((index, nil))
            if index % 64 == 63 { try pumpPipeline(waitForInput: false) }
        }
        guard PQpipelineSync(handle) == 1 else { throw abandonPipeline(PQError.client(handle, "could not send the pipeline sync")) }

        var results: [QueryResult] = []
        var firstError: PQError?
        var answerIndex = 0
        var sawResultForCurrent = false
        while true {
            try pumpPipeline(waitForInput: true)
            while PQisBusy(handle) == 0 {
                guard let result = PQgetResult(handle) else {
                    // The end of one statement's (or preparation's) results.
                    if sawResultForCurrent { answerIndex += 1 }
                    sawResultForCurrent = false
                    continue
                }
                switch PQresultStatus(result) {
                case PGRES_PIPELINE_SYNC:
                    PQclear(result)
                    return PipelineOutcome(results: results, failure: firstError)
                case PGRES_PIPELINE_ABORTED:
                    PQclear(result)
                    sawResultForCurrent = true
                default:
                    sawResultForCurrent = true
                    let answer = answerIndex < answers.count ? answers[answerIndex] : nil
                    let sql = answer.map { statements[$0.statement].sql }
                    do {
                        let checked = try check(result, statement: sql)
                        if let answer, let name = answer.preparing, let sql {
                            // Prepared: from now on this session only binds and executes it.
                            preparedNames[sql] = name
                        } else {
                            results.append(checked)
                        }
                    } catch let error as PQError {
                        if firstError == nil { firstError = error }
                    }
                }
            }
        }
    }

    /// Flushes queued output and, if asked, waits until input arrives and reads it.
    private func pumpPipeline(waitForInput: Bool) throws {
        var pendingOutput = PQflush(handle)
        guard pendingOutput >= 0 else { throw PQError.client(handle, "the connection was lost while sending") }
        if !waitForInput && pendingOutput == 0 { return }
        if !waitForInput {
            // Absorb whatever results arrived so the server is never stuck writing to us.
            guard PQconsumeInput(handle) == 1 else { throw PQError.client(handle, "the connection was lost while reading") }
            return
        }
        repeat {
            guard PQisBusy(handle) == 1 else { return }
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN) | (pendingOutput == 1 ? Int16(POLLOUT) : 0), revents: 0)
            let ready = poll(&descriptor, 1, -1)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { throw PQError(kind: .client, message: "poll failed: \(String(cString: strerror(errno)))") }
            if descriptor.revents & Int16(POLLIN) != 0 {
                guard PQconsumeInput(handle) == 1 else { throw PQError.client(handle, "the connection was lost while reading") }
            }
            pendingOutput = PQflush(handle)
            guard pendingOutput >= 0 else { throw PQError.client(handle, "the connection was lost while sending") }
        } while true
    }

    /// After a send failure: sync and discard everything so the connection stays usable.
    private func abandonPipeline(_ error: PQError) -> PQError {
        PQpipelineSync(handle)
        PQsetnonblocking(handle, 0)
        while true {
            guard let result = PQgetResult(handle) else {
                if PQstatus(handle) != CONNECTION_OK { break }
                continue
            }
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC || PQstatus(handle) != CONNECTION_OK { break }
        }
        return error
    }
}
